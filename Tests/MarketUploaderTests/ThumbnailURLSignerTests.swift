import Foundation
@testable import MarketUploader
import XCTest

/// Signed thumbnail-service URLs, checked against RFC 4231's HMAC-SHA256 vectors and imgproxy's own
/// signing vectors, so existing imgproxy URL builders and this one agree.
final class ThumbnailURLSignerTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testHMACSHA256MatchesRFC4231() {
        // Test cases 1, 2 and 6 (a key longer than the block).
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                                         key: [UInt8](repeating: 0xaa, count: 131))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // SHA-256 itself across the padding boundaries (55, 56, 64 bytes).
        XCTAssertEqual(hex(HMACSHA256.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(HMACSHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex(HMACSHA256.digest([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testImgproxyVectors() throws {
        let documented = try ThumbnailURLSigner(hexKey: "736563726574", hexSalt: "68656C6C6F")
        XCTAssertEqual(documented.signature(for: "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"),
                       "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        let fromTests = ThumbnailURLSigner(key: Data("test-key".utf8), salt: Data("test-salt".utf8))
        XCTAssertEqual(fromTests.signature(for: "/asd"), "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
    }

    func testURLsInBothSourceEncodings() throws {
        let signer = try ThumbnailURLSigner(hexKey: "736563726574", hexSalt: "68656C6C6F")
        XCTAssertEqual(ThumbnailURLSigner.path(options: ["rs:fill:300:400:0", "g:sm"], source: "http://example.com/images/curiosity.jpg", format: "png"),
                       "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        let signed = signer.signedPath(options: ["rs:fill:300:400:0", "g:sm"], source: "http://example.com/images/curiosity.jpg", format: "png")
        XCTAssertEqual(signed, "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        // Characters that would end the source or start a format are escaped in plain sources.
        XCTAssertEqual(ThumbnailURLSigner.path(options: ["pr:list"], source: "local:///sku 1/a@2x?.jpg", format: "webp", encoding: .plain),
                       "/pr:list/plain/local:///sku%201/a%402x%3F.jpg@webp")
        let url = try XCTUnwrap(signer.url(base: URL(string: "https://img.example.com/")!, options: ["pr:grid", "dpr:3"], source: "local:///a.jpg"))
        XCTAssertTrue(url.absoluteString.hasPrefix("https://img.example.com/"), url.absoluteString)
        XCTAssertThrowsError(try ThumbnailURLSigner(hexKey: "xyz", hexSalt: "00"))
        XCTAssertThrowsError(try ThumbnailURLSigner(hexKey: "", hexSalt: "00"))
    }
}

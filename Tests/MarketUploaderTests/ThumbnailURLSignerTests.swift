import Foundation
@testable import MarketUploader
import XCTest

/// Signed thumbnail-service URLs, checked against RFC 4231's HMAC-SHA256 vectors and imgproxy's own
/// signing vectors, so existing imgproxy URL builders and this one agree.
final class ThumbnailURLSignerTests: XCTestCase {
    /// RFC 4231's HMAC-SHA256 test cases 1, 2 and 6 (a key longer than the block), through the signer
    /// with an empty salt: the signature is exactly the HMAC, base64url.
    func testSignaturesAreRFC4231HMACs() {
        let cases: [([UInt8], String, String)] = [
            ([UInt8](repeating: 0x0b, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ]
        for (key, message, expected) in cases {
            let signature = ThumbnailURLSigner(key: Data(key), salt: Data()).signature(for: message)
            XCTAssertEqual(signature, ThumbnailURLSigner.base64URL(ThumbnailURLSigner.decodeHex(expected)!), message)
        }
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

import Foundation
@testable import ThumbnailService
import ImagePipeline
import TestSupport
import XCTest

/// The small pieces of the service's hot path that replaced Foundation calls for speed, checked
/// against Foundation itself.
final class ServiceCodecTests: XCTestCase {
    func testBase64URLDecodesWhatFoundationEncodesAndNothingElse() {
        var generator = SeededGenerator(seed: 11)
        for length in 0..<300 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let encoded = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            XCTAssertEqual(Base64URL.decode(encoded), bytes, encoded)
            XCTAssertEqual(Base64URL.decode(encoded.trimmingCharacters(in: CharacterSet(charactersIn: "="))), bytes, "padding is optional")
        }
        // "QQ" is "A"; "QR" has stray low bits, so a second spelling of the same bytes: refused.
        XCTAssertEqual(Base64URL.decode("QQ"), Data("A".utf8))
        for refused in ["QR", "Q", "QQ+A", "QQ/A", "a=b", "é", "QQ\u{0}"] { XCTAssertNil(Base64URL.decode(refused), refused) }
    }

    func testFingerprintHexMatchesFormattedHex() {
        let data = Data((0..<256).map { UInt8($0) })
        XCTAssertEqual(Fingerprint.hex(bytes: data), data.map { String(format: "%02x", $0) }.joined())
    }

    func testTheMemoryCacheStaysWithinItsBudgetAndKeepsTheRecent() {
        let cache = MemoryCache(sizeLimit: 100_000)
        let entry = { (size: Int) in DiskCache.Entry(format: .jpeg, width: 1, height: 1, data: Data(count: size)) }
        for index in 0..<100 {
            cache.store(entry(9_000), key: "k\(index)")
            _ = cache.load(key: "k0")
            XCTAssertLessThanOrEqual(cache.byteCount, 100_000)
        }
        XCTAssertNotNil(cache.load(key: "k0"), "used all along, so kept")
        XCTAssertNotNil(cache.load(key: "k99"), "the newest is kept")
        XCTAssertNil(cache.load(key: "k1"))
        cache.store(entry(20_000), key: "big")
        XCTAssertNil(cache.load(key: "big"), "an entry over a tenth of the budget is not kept")
    }
}

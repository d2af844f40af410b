import Foundation
import TestSupport
@testable import MarketUploader
import XCTest

final class MultipartFormDataTests: XCTestCase {
    /// The whole body, byte for byte: `--boundary` lines, CRLF after every header block and every
    /// part, and the closing `--boundary--`.
    func testExactBytesOfABody() throws {
        let form = try MultipartFormData(parts: [
            .text("title", "Mug"),
            MultipartFormData.Part(name: "images[]", filename: "컵 1.jpg", contentType: "image/jpeg", data: Data([0xFF, 0xD8, 0x0D, 0x0A, 0xFF, 0xD9])),
        ], boundary: "XyZ")
        var expected = Data()
        expected += Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMug\r\n".utf8)
        expected += Data("--XyZ\r\nContent-Disposition: form-data; name=\"images[]\"; filename=\"컵 1.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        expected += Data([0xFF, 0xD8, 0x0D, 0x0A, 0xFF, 0xD9]) + Data("\r\n--XyZ--\r\n".utf8)
        XCTAssertEqual(form.encoded(), expected)
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=XyZ")
    }

    func testNamesAndFilenamesCannotInjectHeaders() throws {
        let form = try MultipartFormData(parts: [
            MultipartFormData.Part(name: "a\"b", filename: "evil\r\nContent-Type: text/html\r\n\r\n\"x\\y.jpg", contentType: "image/jpeg", data: Data("x".utf8)),
        ], boundary: "B")
        let text = String(decoding: form.encoded(), as: UTF8.self)
        XCTAssertTrue(text.contains("name=\"a%22b\"; filename=\"evil%0D%0AContent-Type: text/html%0D%0A%0D%0A%22x\\y.jpg\"\r\n"), text)
        XCTAssertEqual(text.components(separatedBy: "\r\nContent-Type: ").count, 2, "exactly one Content-Type header line")
        let parts = try OpenMarketTestServer.parseMultipart(form.encoded(), contentType: form.contentType)
        XCTAssertEqual(parts.count, 1)
        XCTAssertEqual(parts[0].headers["content-type"], "image/jpeg")
    }

    func testABoundaryFoundInContentIsRefusedAndRandomOnesAvoidContent() throws {
        let payload = MultipartFormData.Part(name: "f", data: Data("--XyZ\r\n".utf8))
        XCTAssertThrowsError(try MultipartFormData(parts: [payload], boundary: "XyZ")) { error in
            XCTAssertEqual(error as? MultipartError, .boundaryInContent("XyZ"))
        }
        XCTAssertThrowsError(try MultipartFormData(parts: [], boundary: "bad boundary ")) { error in
            XCTAssertEqual(error as? MultipartError, .invalidBoundary("bad boundary "))
        }
        let random = try MultipartFormData(parts: [payload])
        XCTAssertTrue(random.boundary.hasPrefix("market-images-"))
        XCTAssertEqual(try OpenMarketTestServer.parseMultipart(random.encoded(), contentType: random.contentType).first?.body, Data("--XyZ\r\n".utf8))
        XCTAssertNotEqual(random.boundary, try MultipartFormData(parts: [payload]).boundary, "a fresh boundary per body")
    }

    /// Property: whatever the names, filenames and bytes — including bytes that look like delimiters —
    /// an independent parser gets back exactly what went in.
    func testRoundTripThroughAnIndependentParser() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let alphabet = Array("abcXYZ09-_ []\"\\\r\n한국어写真é.;=%")
        for iteration in 0..<150 {
            let count = Int.random(in: 1...6, using: &generator)
            let parts: [MultipartFormData.Part] = (0..<count).map { index in
                let name = String((0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                let filename = Bool.random(using: &generator)
                    ? String((0..<Int.random(in: 1...16, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) + ".jpg" : nil
                var bytes = (0..<Int.random(in: 0...4000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Plant delimiter look-alikes: CRLF--, the boundary prefix, a closing delimiter shape.
                for fake in ["\r\n--", "\r\n--market-images-", "--market-images-0123--\r\n", "\r\n\r\n"] where Bool.random(using: &generator) {
                    bytes.insert(contentsOf: Array(fake.utf8), at: Int.random(in: 0...bytes.count, using: &generator))
                }
                return MultipartFormData.Part(name: "\(index)\(name)", filename: filename, contentType: filename == nil ? nil : "image/jpeg", data: Data(bytes))
            }
            let form = try MultipartFormData(parts: parts)
            let body = form.encoded()
            let parsed = try OpenMarketTestServer.parseMultipart(body, contentType: form.contentType)
            XCTAssertEqual(parsed.count, parts.count, "iteration \(iteration)")
            for (sent, got) in zip(parts, parsed) {
                XCTAssertEqual(got.name, MultipartFormData.escape(sent.name), "iteration \(iteration)")
                XCTAssertEqual(got.filename, sent.filename.map(MultipartFormData.escape), "iteration \(iteration)")
                XCTAssertEqual(got.headers["content-type"], sent.contentType)
                XCTAssertEqual(got.body, sent.data, "iteration \(iteration)")
            }
        }
    }
}

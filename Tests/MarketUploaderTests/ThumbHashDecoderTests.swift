import Foundation
@testable import ImagePipeline
import MarketUploader
import TestSupport
import XCTest

/// The app's ThumbHash decoder against the reference: every hash in `thumbhash/decodes.json` (our
/// encoder's hashes of made images and of the corpus photos, and seeded random ones) drawn as the
/// reference decoder draws it, pixel for pixel within a level; bad input a `ThumbHashError`; the PNG
/// it makes read back by libvips as the same pixels.
final class ThumbHashDecoderTests: XCTestCase {
    /// One hash and what the reference decoder made of it (`scripts/thumbhash-fixture.py`).
    private struct Case: Decodable {
        let name: String
        let hash: String
        let aspectRatio: Double
        let average: [Double]
        let width: Int
        let height: Int
        let rgba: String
    }

    private struct Decodes: Decodable {
        let cases: [Case]
    }

    private func fixture() throws -> [Case] {
        try JSONDecoder().decode(Decodes.self, from: Data(contentsOf: Fixture.root.appendingPathComponent("thumbhash/decodes.json"))).cases
    }

    func testEveryHashDrawsAsTheReferenceDecoderDrawsIt() throws {
        let cases = try fixture()
        var largest = 0
        for test in cases {
            let hash = try ThumbHashPlaceholder(base64: test.hash)
            XCTAssertEqual(hash.base64, test.hash, test.name)
            XCTAssertEqual(hash.aspectRatio, test.aspectRatio, accuracy: 1e-9, test.name)
            let average = hash.averageColour
            for (ours, theirs) in zip([average.red, average.green, average.blue, average.alpha], test.average) {
                XCTAssertEqual(ours * 255, theirs * 255, accuracy: 1, "\(test.name): average \(average) against \(test.average)")
            }

            let image = hash.image()
            XCTAssertEqual([image.width, image.height], [test.width, test.height], test.name)
            let expected = [UInt8](try XCTUnwrap(Data(base64Encoded: test.rgba), test.name))
            XCTAssertEqual(image.rgba.count, expected.count, test.name)
            let differences = zip(image.rgba, expected).map { abs(Int($0) - Int($1)) }
            let worst = differences.max() ?? 0
            if worst > 1, let index = differences.firstIndex(of: worst) {
                XCTFail("\(test.name): pixel \(index / 4 % image.width),\(index / 4 / image.width) channel \(index % 4) is \(image.rgba[index]), the reference draws \(expected[index])")
            }
            largest = max(largest, worst)
        }
        // What the fixture covers, so a fixture cut short fails here rather than passing on less.
        let hashes = try cases.map { try ThumbHashPlaceholder(base64: $0.hash) }
        XCTAssertGreaterThanOrEqual(cases.filter { $0.name.hasPrefix("photos/") || $0.name.hasPrefix("orientation/") }.count, 20, "the corpus photos")
        XCTAssertTrue(hashes.contains { $0.averageColour.alpha < 1 }, "a hash with transparency")
        XCTAssertTrue(hashes.contains { $0.aspectRatio >= 7 } && hashes.contains { $0.aspectRatio <= 1.0 / 7 }, "the widest and tallest shapes")
        XCTAssertLessThanOrEqual(largest, 1)
    }

    /// Every prefix of a real hash is too short (the header says how many terms follow), random
    /// bytes decode or fail by a `ThumbHashError`, and so does text that is not base64: an app
    /// showing a broken server's answer shows a plain cell, and never reads past the bytes.
    func testMalformedHashesAreErrorsNeverCrashes() throws {
        for test in try fixture() {
            let bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: test.hash)))
            for count in 0..<bytes.count {
                XCTAssertThrowsError(try ThumbHashPlaceholder(bytes: Array(bytes.prefix(count))), "\(test.name), \(count) bytes") { error in
                    guard case .tooShort(count, let needed)? = error as? ThumbHashError else { return XCTFail("\(error)") }
                    XCTAssertGreaterThan(needed, count)
                    XCTAssertLessThanOrEqual(needed, bytes.count)
                }
            }
            XCTAssertEqual(try ThumbHashPlaceholder(bytes: bytes + [0, 0]).image(), try ThumbHashPlaceholder(bytes: bytes).image(),
                           "\(test.name): bytes after the last term are not read")
        }

        var generator = SeededGenerator(seed: 46)
        var (drawn, refused) = (0, 0)
        for _ in 0..<1000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                let image = try ThumbHashPlaceholder(bytes: bytes).image()
                XCTAssertTrue((1...32).contains(image.width) && (1...32).contains(image.height), "\(bytes)")
                XCTAssertEqual(image.rgba.count, image.width * image.height * 4)
                drawn += 1
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(drawn, 100, "random bytes long enough for their header are a hash")
        XCTAssertGreaterThan(refused, 100)

        for text in ["not base64!", "AA*A", "YWJj\u{0}ZGVm", "🙂"] {
            XCTAssertThrowsError(try ThumbHashPlaceholder(base64: text), text) { XCTAssertEqual($0 as? ThumbHashError, .notBase64, text) }
        }
        XCTAssertThrowsError(try ThumbHashPlaceholder(base64: "")) { XCTAssertEqual($0 as? ThumbHashError, .tooShort(count: 0, needed: 5)) }
        // A header giving the shorter side no terms has no shape: the reference would draw 0 pixels wide.
        XCTAssertThrowsError(try ThumbHashPlaceholder(bytes: [0x5F, 0x7B, 0x15, 0x30, 0x04] + [UInt8](repeating: 0x88, count: 20))) {
            XCTAssertEqual($0 as? ThumbHashError, .noShape)
        }
        let answer = Data(#"{"thumbHash": "AA*A"}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode([String: ThumbHashPlaceholder].self, from: answer)) {
            XCTAssertTrue("\($0)".contains("not base64"), "\($0)")
        }
    }

    /// The PNG an app hands to `UIImage(data:)` holds exactly the decoded pixels, as another
    /// decoder (libvips) reads it: size, transparency and every byte.
    func testThePNGIsThePixelsAsAnotherDecoderReadsThem() throws {
        let cases = try fixture()
        let chosen = [cases.first { !$0.name.contains("alpha") }, cases.first { $0.name.contains("alpha") }, cases.first { $0.name.hasPrefix("random/") }]
        for test in chosen {
            let test = try XCTUnwrap(test)
            let image = try ThumbHashPlaceholder(base64: test.hash).image()
            let png = image.pngData()
            XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], test.name)
            let header = try ImageHeader.read(.data(png))
            XCTAssertEqual([header.format, "\(header.width)×\(header.height)"], ["PNG", "\(image.width)×\(image.height)"], test.name)
            let decoded = try DecodedImage.decode(.data(png), maxPixels: 10_000) { _ in (100, 100) }
            XCTAssertTrue(decoded.image.hasAlpha, test.name)
            XCTAssertEqual(try decoded.withSRGBBytes(alpha: true) { Array($0) }, image.rgba, test.name)
        }
    }

    /// `#rrggbb` as the service writes it becomes components an app draws with, and back.
    func testColoursReadFromTheServicesText() throws {
        let colour = try JSONDecoder().decode([RGBAColour].self, from: Data(##"["#ff8000", "#1A2b3C", "#00000080"]"##.utf8))
        XCTAssertEqual(colour[0], RGBAColour(red: 1, green: 128.0 / 255, blue: 0))
        XCTAssertEqual(colour[1].hex, "#1a2b3c")
        XCTAssertEqual(colour[2].alpha, 128.0 / 255, accuracy: 1e-9)
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(colour), as: UTF8.self), ##"["#ff8000","#1a2b3c","#00000080"]"##)
        for text in ["ff8000", "#ff800", "#ff80000", "#gg8000", "#ff8000 ", "#+f8000"] {
            XCTAssertNil(RGBAColour(hex: text), text)
            XCTAssertThrowsError(try JSONDecoder().decode([RGBAColour].self, from: Data("[\"\(text)\"]".utf8)), text)
        }
    }
}

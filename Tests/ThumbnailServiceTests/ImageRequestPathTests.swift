import Foundation
import TestSupport
import XCTest
@testable import ThumbnailService
import ImagePipeline

/// The thumbnail service's URL path: imgproxy's format and option names, every malformed path a
/// typed error and never a crash, and values bounded before they reach libvips.
final class ImageRequestPathTests: XCTestCase {
    private func parse(_ path: String, now: Date = Date()) throws -> ImageRequestPath {
        try ImageRequestPath.parse(path, now: now)
    }

    func testImgproxyDocumentedPathParses() throws {
        let request = try parse("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        XCTAssertEqual(request.source, "http://example.com/images/curiosity.jpg")
        XCTAssertEqual(request.options.resizing, .fill)
        XCTAssertEqual([request.options.width, request.options.height], [300, 400])
        XCTAssertEqual(request.options.gravity, .attention)
        XCTAssertEqual(request.options.format, .png)
    }

    func testPlainSourcesAndTheirFormat() throws {
        let request = try parse("/pr:list/dpr:3/plain/local:///sku%201/a%402x.jpg@webp")
        XCTAssertEqual(request.source, "local:///sku 1/a@2x.jpg")
        XCTAssertEqual(request.options.format, .webp)
        let spec = try request.options.spec(format: .webp, defaultQuality: 80, maxOutputEdge: 4096)
        XCTAssertEqual([spec.width, spec.height], [240, 240], "list is 80 points, at @3x 240 px")
        XCTAssertEqual(spec.resizing, .fillDown)
        XCTAssertEqual(spec.gravity, .attention)
        // `%3A` in the options counts as the separator, as imgproxy normalises it.
        XCTAssertEqual(try parse("/w%3A120/plain/local:///a.jpg").options.width, 120)
    }

    func testLaterOptionsOverrideEarlierOnesAndPresetsExpandInPlace() throws {
        XCTAssertEqual(try parse("/w:100/rs:fit:200/plain/local:///a.jpg").options.width, 200)
        XCTAssertEqual(try parse("/pr:grid/w:50/plain/local:///a.jpg").options.width, 50)
        XCTAssertEqual(try parse("/w:50/pr:grid/plain/local:///a.jpg").options.width, 200)
        let upload = try parse("/pr:upload/plain/local:///a.jpg").options
        XCTAssertEqual(upload.autoquality, .init(maxBytes: 300_000, qualities: 75...92), "prepare's budget and quality range")
        XCTAssertEqual(upload.format, .jpeg)
        let budget = try upload.spec(format: .jpeg, defaultQuality: 80, maxOutputEdge: 4096)
        XCTAssertEqual([budget.maxBytes, budget.minQuality, budget.quality], [300_000, 75, 92])
        XCTAssertEqual(try parse("/aq:size:20000/plain/local:///a.jpg").options.autoquality?.qualities, 70...80, "imgproxy's defaults")
        XCTAssertNil(try parse("/pr:upload/aq:none/plain/local:///a.jpg").options.autoquality)
        XCTAssertEqual(try parse("/rs:::120/plain/local:///a.jpg").options.height, 120, "empty arguments are skipped")
    }

    func testMalformedPathsAreNamedErrors() {
        let cases: [(String, ProcessingError)] = [
            ("/frobnicate:1/plain/local:///a.jpg", .unknownOption("frobnicate")),
            ("/w:-1/plain/local:///a.jpg", .invalidArgument(option: "w", value: "-1", expected: "a whole number from 0 to 65535")),
            ("/w:99999999999999999999999/plain/local:///a.jpg",
             .invalidArgument(option: "w", value: "99999999999999999999999", expected: "a whole number from 0 to 65535")),
            ("/rs:squash:1:1/plain/local:///a.jpg", .invalidArgument(option: "rs", value: "squash", expected: "fit, fill, fill-down, force, auto")),
            ("/dpr:0/plain/local:///a.jpg", .invalidArgument(option: "dpr", value: "0", expected: "a number from 0.01 to 8")),
            ("/el:maybe/plain/local:///a.jpg", .invalidArgument(option: "el", value: "maybe", expected: "1, t, true, 0, f or false")),
            ("/sm:0/plain/local:///a.jpg", .invalidArgument(option: "sm", value: "0", expected: "true: metadata is always stripped")),
            ("/mb:100/plain/local:///a.jpg", .invalidArgument(option: "mb", value: "100", expected: "0 (off) or 256–1073741824")),
            ("/pr:nope/plain/local:///a.jpg", .unknownPreset("nope")),
            ("/aq:dssim:0.02/plain/local:///a.jpg", .invalidArgument(option: "aq", value: "dssim", expected: "size, ssimulacra2 or none")),
            ("/aq:size:30000:90:80/plain/local:///a.jpg", .invalidArgument(option: "aq", value: "90:80", expected: "a minimum quality at most the maximum")),
            ("/aq:size/plain/local:///a.jpg", .invalidArgument(option: "aq", value: "", expected: "a byte size after size:")),
            ("/exp:1/plain/local:///a.jpg", .expired),
            ("/plain/a@b@c", .invalidSource("more than one @ in a plain source; escape @ as %40")),
            ("/plain/", .invalidSource("nothing after plain/")),
            ("/w:10", .invalidSource("no source after the options")),
            ("/w:10/!!!notbase64", .invalidSource("not base64url-encoded UTF-8")),
            ("/w:10/YWJj.png.jpg", .invalidSource("more than one . after a base64 source")),
            ("/plain/local:///a.jpg@svg", .invalidArgument(option: "format", value: "svg", expected: "jpg, png, webp, avif, jxl or gif")),
            ("/plain/local:///a.jpg@bmp", .formatNotWritten(.bmp)), ("/f:TIFF/plain/local:///a.jpg", .formatNotWritten(.tiff)),
        ]
        for (path, expected) in cases {
            XCTAssertThrowsError(try parse(path), path) { error in
                XCTAssertEqual(error as? ProcessingError, expected, path)
            }
        }
    }

    /// `rs:fill:65535:1` parses as options but is refused before any work: a crop past the largest
    /// edge the service allows (and at dpr 8, past it even from a sane number). A fit past it is
    /// clamped to it instead, since a fit never enlarges: `pr:upload/dpr:3` is the source up to the limit.
    /// A path parsed once is not parsed again (a hit's URL comes back and back), an `expires` is
    /// checked on every use against the clock, and the memory of paths is bounded by count and length.
    func testParsedPathsAreKeptButExpiryIsCheckedEachTime() throws {
        let paths = ParsedPaths()
        let parses = Locked(0)
        let parse = { (path: String) throws(ServiceFailure) -> ImageRequestPath in
            parses.withLock { $0 += 1 }
            do throws(ProcessingError) { return try ImageRequestPath.parse(path, now: Date(timeIntervalSince1970: 0)) } catch { throw ServiceFailure(error) }
        }
        let expiring = "/exp:1000/w:100/plain/local:///a.jpg"
        XCTAssertEqual(try paths.parsed(expiring, info: false, now: Date(timeIntervalSince1970: 999), by: parse).options.width, 100)
        XCTAssertEqual(try paths.parsed(expiring, info: false, now: Date(timeIntervalSince1970: 999), by: parse).options.width, 100)
        XCTAssertEqual(parses.current, 1, "the second use is not parsed")
        XCTAssertThrowsError(try paths.parsed(expiring, info: false, now: Date(timeIntervalSince1970: 1001), by: parse)) { error in
            XCTAssertEqual((error as? ServiceFailure)?.error, "expired", "\(error)")
        }
        _ = try paths.parsed(expiring, info: true, by: parse)
        XCTAssertEqual(parses.current, 2, "an info URL's parse is its own")
        let long = "/w:100/plain/local:///" + String(repeating: "a", count: ParsedPaths.lengthLimit) + ".jpg"
        _ = try paths.parsed(long, info: false, by: parse)
        _ = try paths.parsed(long, info: false, by: parse)
        XCTAssertEqual(parses.current, 4, "a long path is not kept")
        for width in 1...ParsedPaths.countLimit { _ = try paths.parsed("/w:\(width)/plain/local:///a.jpg", info: false, by: parse) }
        _ = try paths.parsed(expiring, info: false, now: Date(timeIntervalSince1970: 999), by: parse)
        XCTAssertEqual(parses.current, 4 + ParsedPaths.countLimit + 1, "full, the memory started over")
    }

    func testOutputSizeIsBoundedByTheService() throws {
        func spec(_ path: String) throws -> RenderSpec {
            try parse(path).options.spec(format: .jpeg, defaultQuality: 80, maxOutputEdge: 4096)
        }
        XCTAssertThrowsError(try spec("/rs:fill:65535:1/plain/local:///a.jpg"))
        XCTAssertThrowsError(try spec("/rs:force:1000:10/dpr:8/plain/local:///a.jpg"))
        XCTAssertThrowsError(try spec("/rs:fit:5000:10/el:1/plain/local:///a.jpg"), "an enlarging fit would be that size")
        XCTAssertEqual(try spec("/w:512/dpr:8/plain/local:///a.jpg").width, 4096)
        let clamped = try spec("/w:1000/h:300/dpr:8/plain/local:///a.jpg")
        XCTAssertEqual([clamped.width, clamped.height, clamped.maxEdge], [4096, 2400, 4096])
        XCTAssertEqual(try spec("/pr:upload/dpr:3/plain/local:///a.jpg").width, 4096)
    }

    /// Seeded garbage: truncations, mutations and splices of valid paths, huge numbers, odd bytes.
    /// Every one parses or throws a `ProcessingError`; none traps, and a parsed one always yields a
    /// spec or a typed error.
    func testThousandsOfMalformedPathsNeverCrash() {
        var outcomes = [0, 0]
        for path in MalformedPaths.generate(count: 3000, seed: 0xBAD_0CA1) {
            do throws(ProcessingError) {
                let request = try ImageRequestPath.parse(path)
                _ = try? request.options.spec(format: .jpeg, defaultQuality: 80, maxOutputEdge: 4096)
                outcomes[0] += 1
            } catch {
                XCTAssertFalse(error.description.isEmpty)
                outcomes[1] += 1
            }
        }
        XCTAssertGreaterThan(outcomes[1], 1000, "most garbage is refused: \(outcomes)")
    }
}

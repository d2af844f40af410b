import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// libvips has one error buffer for the whole process. With many damaged files of different formats
/// failing at once, each error must still be its own: the right kind and format always, and detail
/// text only from its own loader or naming its own file.
final class ConcurrentErrorTests: FolderTestCase {
    private static let sources: [(fixture: String, format: String)] = [
        ("photos/jolla.jpg", "JPEG"), ("alpha/Flag_of_the_Netherlands-alpha.png", "PNG"),
        ("photos/iphone_13_pro_max.HEIC", "HEIF"), ("alpha/5_webp_a.webp", "WebP"),
        ("generated/animated.gif", "GIF"), ("generated/photo.avif", "HEIF"),
    ]
    /// Error-text prefixes of each loader, for spotting a line that strayed into another file's error.
    private static let domains = ["VipsJpeg:": "JPEG", "jpegload:": "JPEG", "vipspng:": "PNG", "pngload:": "PNG",
                                  "heif:": "HEIF", "heifload:": "HEIF", "webp:": "WebP", "webpload:": "WebP", "gifload:": "GIF"]

    func testEveryErrorKeepsItsOwnCauseWithManyFormatsFailingAtOnce() throws {
        var expected: [String: String] = [:]
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for copy in 1...8 {
            for (fixture, format) in Self.sources {
                let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path(fixture)))
                let name = "\(copy)-\((fixture as NSString).lastPathComponent)"
                try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: input + "/" + name))
                expected[input + "/" + name] = format
            }
        }
        var withDetail = 0, failures = 0
        for run in 1...3 {
            var job = FolderJob(inputs: [input], outputFolder: output + "-\(run)")
            job.jobs = 8
            let report = try FolderProcessor(job: job).run()
            XCTAssertEqual(report.failed.count, expected.count, "run \(run): every truncated file fails")
            for failure in report.failed {
                let name = (failure.source as NSString).lastPathComponent
                guard case .damaged(let format, let detail)? = failure.cause else {
                    XCTFail("run \(run): \(name) failed as \(failure.error), not as damage"); continue
                }
                XCTAssertEqual(format, expected[failure.source], "run \(run): \(name): \(failure.error)")
                for (domain, owner) in Self.domains where detail.contains(domain) {
                    XCTAssertEqual(owner, expected[failure.source], "run \(run): \(name) took another format's text: \(detail)")
                }
                for path in expected.keys where path != failure.source && detail.contains(path + ":") {
                    XCTFail("run \(run): \(name) took the text of \(path): \(detail)")
                }
                failures += 1
                if !detail.isEmpty { withDetail += 1 }
            }
        }
        // Detail is best effort under a race between two files of one format; it is rarely missing.
        XCTAssertGreaterThanOrEqual(Double(withDetail) / Double(failures), 0.9, "\(withDetail) of \(failures) with detail")
    }

    /// A line some earlier call left in the buffer (a warning of a decode that succeeded, a failure
    /// nobody asked about) is never the cause of a later file's failure: the same damaged file says the
    /// same thing every time.
    func testALineLeftBeforeAnImageWasOpenedIsNotItsCause() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("hostile/corrupted.jpg")))
        func detail() throws -> String {
            do {
                _ = try DecodedImage.decode(.data(data), maxPixels: 100_000_000) { _ in (64, 64) }
                XCTFail("a corrupted JPEG decodes"); return ""
            } catch .damaged(_, let detail) {
                return detail
            }
        }
        // Bytes no loader claims leave libvips' "buffer is not in a known format", which is unsupported
        // input, and no concern of the JPEG that fails next.
        XCTAssertThrowsError(try ImageHeader.read(.data(Data("not an image".utf8))))
        let first = try detail(), second = try detail()
        XCTAssertFalse(first.contains("known format"), first)
        XCTAssertEqual(first, second)
        XCTAssertTrue(first.contains("Corrupt JPEG data"), first)
    }
}

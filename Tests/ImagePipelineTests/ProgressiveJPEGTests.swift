import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// Upload images and thumbnails are progressive JPEGs unless baseline is asked for, as ExifTool reads
/// them, and still decode; under the byte budget progressive's smaller scans never cost quality.
final class ProgressiveJPEGTests: FolderTestCase {
    func testUploadsAndThumbnailsAreProgressiveUnlessBaselineIsAsked() throws {
        for (progressive, expected) in [(true, "Progressive DCT, Huffman coding"), (false, "Baseline DCT, Huffman coding")] {
            let out = output + "/\(progressive ? "progressive" : "baseline")"
            var prepare = PrepareOptions(), thumbnails = ThumbnailOptions()
            prepare.progressive = progressive
            thumbnails.progressive = progressive
            var job = FolderJob(inputs: [Fixture.path("photos/jolla.jpg")], outputFolder: out, prepare: prepare, thumbnails: thumbnails)
            job.thumbnailSubfolder = FolderJob.thumbnailsBesideUploads
            let report = try FolderProcessor(job: job).run()
            XCTAssertTrue(report.succeeded, "\(report.failed)")
            for file in [out + "/jolla.jpg", out + "/thumbnails/jolla.list@3x.jpg"] {
                XCTAssertEqual(try Exiftool.value(of: "EncodingProcess", in: file), expected, file)
                let decoded = try DecodedImage.decode(file: file, maxPixels: .max) { _ in (4096, 4096) }
                XCTAssertGreaterThan(decoded.width, 0)
            }
        }
        let progressive = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: output + "/progressive/manifest.json")))
        let baseline = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: output + "/baseline/manifest.json")))
        let (p, b) = (try XCTUnwrap(progressive.outputs.first), try XCTUnwrap(baseline.outputs.first))
        XCTAssertLessThanOrEqual(p.bytes, 300_000)
        XCTAssertGreaterThanOrEqual(p.quality ?? 0, b.quality ?? 0, "progressive fits the budget at the same quality or a higher one")
    }
}

import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// JPEGs are progressive unless asked otherwise, as ExifTool reads them, and still decode; under the
/// byte budget progressive's smaller scans never cost quality.
final class ProgressiveJPEGTests: FolderTestCase {
    func testUploadsAndThumbnailsAreProgressiveUnlessBaselineIsAsked() throws {
        for (flags, expected) in [([String](), "Progressive DCT, Huffman coding"), (["--baseline-jpeg"], "Baseline DCT, Huffman coding")] {
            let out = output + "/\(flags.isEmpty ? "progressive" : "baseline")"
            let result = try CommandLineTool.run(["prepare", Fixture.path("photos/jolla.jpg"), "--out", out, "--thumbs"] + flags)
            XCTAssertEqual(result.status, 0, result.stderr)
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

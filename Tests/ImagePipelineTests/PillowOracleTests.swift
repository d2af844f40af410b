import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// AVIF and progressive JPEG as another decoder reads them: Pillow, with its own libavif and
/// libjpeg (installed by `scripts/setup --tests`), not libvips or libheif.
final class PillowOracleTests: FolderTestCase {
    func testPillowDecodesAVIFAndSeesProgressiveJPEG() throws {
        try copy("photos/jolla.jpg", to: "jolla.jpg")
        try copy("orientation/Landscape_6.jpg", to: "sideways.jpg")
        for (folder, format, progressive) in [("avif", OutputFormat.avif, true), ("jpeg", .jpeg, true), ("baseline", .jpeg, false)] {
            var options = ThumbnailOptions()
            options.format = format
            options.scales = [3]
            options.progressive = progressive
            let report = try FolderProcessor(job: FolderJob(inputs: [input], outputFolder: output + "/" + folder, prepare: nil, thumbnails: options)).run()
            XCTAssertTrue(report.succeeded, "\(report.failed)")
        }
        for (file, format, progressive) in [("avif/in/sideways.grid@3x.avif", "AVIF", false), ("avif/in/jolla.list@3x.avif", "AVIF", false),
                                            ("jpeg/in/jolla.grid@3x.jpg", "JPEG", true), ("baseline/in/jolla.grid@3x.jpg", "JPEG", false)] {
            let seen = try pillow(output + "/" + file)
            XCTAssertEqual(seen["format"] as? String, format, file)
            // The sideways photo is 600×450 upright: its grid square is 450, never enlarged.
            XCTAssertEqual(seen["size"] as? [Int], file.contains("list") ? [240, 240] : file.contains("sideways") ? [450, 450] : [600, 600], file)
            XCTAssertEqual(seen["progressive"] as? Bool, progressive, file)
        }
    }

    private func pillow(_ path: String) throws -> [String: Any] {
        let script = """
        import json, sys
        from PIL import Image
        image = Image.open(sys.argv[1])
        image.load()
        print(json.dumps({"format": image.format, "size": list(image.size), "progressive": bool(image.info.get("progressive"))}))
        """
        let output = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, path])
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output) as? [String: Any], String(decoding: output, as: UTF8.self))
    }
}

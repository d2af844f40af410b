import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Placeholders in `thumbs.json`, checked against an independent ThumbHash implementation (PyPI's
/// `thumbhash`, installed by `scripts/setup --tests`): its encoder gives the same bytes for the same
/// opaque pixels; its decoder reads the photo's mean colour (within a few levels) and shape from ours.
final class ThumbHashTests: FolderTestCase {
    func testThumbsJSONCarriesPlaceholdersThatAnIndependentDecoderReads() throws {
        try copy("photos/jolla.jpg", to: "jolla.jpg")
        try copy("photos/DSCN0010.jpg", to: "garden.jpg")
        try copy("orientation/Landscape_6.jpg", to: "sideways.jpg")
        try copy("alpha/Flag_of_the_Netherlands-alpha.png", to: "flag.png")
        let report = try FolderProcessor(job: FolderJob(inputs: [input], outputFolder: output, prepare: nil, thumbnails: ThumbnailOptions())).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        let index = try JSONDecoder().decode(ThumbnailIndex.self, from: Data(contentsOf: URL(fileURLWithPath: output + "/thumbs.json")))
        XCTAssertEqual(index.sources.count, 4)
        for entry in index.sources {
            let name = (entry.source as NSString).lastPathComponent
            let placeholder = try XCTUnwrap(entry.placeholder, name)
            // Sources are recorded relative to the index's folder.
            let source = URL(fileURLWithPath: entry.source, relativeTo: URL(fileURLWithPath: output + "/")).standardizedFileURL.path
            let photo = try DecodedImage.decode(file: source, maxPixels: .max) { _ in (100, 100) }
            XCTAssertEqual(placeholder.aspectRatio, Double(photo.width) / Double(photo.height), accuracy: 0.01, "\(name): upright shape")
            XCTAssertTrue(placeholder.dominantColour.range(of: "^#[0-9a-f]{6}$", options: .regularExpression) != nil, placeholder.dominantColour)

            // The package's encoder fails on transparent images (its own bug); its decoder does not.
            if !photo.image.hasAlpha {
                let rgba = try photo.withSRGBBytes(alpha: true) { Array($0) }
                let ours = ThumbHash.encode(width: photo.width, height: photo.height, rgba: rgba)
                let theirs = try python(.encode(width: photo.width, height: photo.height, rgba: rgba))
                XCTAssertEqual(Data(ours).base64EncodedString(), theirs["hash"] as? String, "\(name): the same bytes as the other encoder")
            }

            let read = try python(.decode(placeholder.thumbHash))
            let average = try XCTUnwrap(read["average"] as? [Double], "\(read)")
            XCTAssertEqual(read["ratio"] as? Double ?? 0, placeholder.aspectRatio, accuracy: 0.35, "\(name): the hash carries the shape")
            guard !photo.image.hasAlpha else {
                XCTAssertLessThan(average[3], 0.99, "\(name): the hash keeps transparency")
                continue
            }
            let mean = try photo.image.meanBands(x: 0, y: 0, width: photo.width, height: photo.height)
            for band in 0..<3 {
                XCTAssertEqual(average[band] * 255, mean[band], accuracy: 6, "\(name) band \(band): \(average) against \(mean)")
            }
        }
    }

    private enum Question {
        case encode(width: Int, height: Int, rgba: [UInt8])
        case decode(String)
    }

    /// Asks the Python package: the hash of some pixels, or the average colour and approximate aspect
    /// ratio a hash decodes to.
    private func python(_ question: Question) throws -> [String: Any] {
        let file = root + "/question-\(UUID().uuidString)"
        let script: String
        switch question {
        case .encode(let width, let height, let rgba):
            try Data(rgba).write(to: URL(fileURLWithPath: file))
            script = "h = thumbhash.rgba_to_thumb_hash(\(width), \(height), list(open(sys.argv[1], 'rb').read()))\n"
                + "print(json.dumps({'hash': base64.b64encode(bytes(h)).decode()}))"
        case .decode(let hash):
            try Data(hash.utf8).write(to: URL(fileURLWithPath: file))
            script = "h = list(base64.b64decode(open(sys.argv[1]).read()))\n"
                + "print(json.dumps({'average': list(thumbhash.thumb_hash_to_average_rgba(h)), 'ratio': thumbhash.thumb_hash_to_approximate_aspect_ratio(h)}))"
        }
        let output = String(decoding: try ProcessOutput.run("/usr/bin/env", ["python3", "-c", "import base64, json, sys, thumbhash\n" + script, file]),
                            as: UTF8.self)
        // The package prints stray numbers of its own: the answer is the last line.
        let answer = output.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], "python said: \(output)")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// A folder prepared to a target score: each photo at the lowest quality that scores the target by
/// SSIMULACRA2 (checked with PyPI's `ssimulacra2` against the same photo fitted losslessly), never
/// over the budget, the score in the report (what `--json` prints) and the manifest, and a photo the
/// budget cannot bring to the target named with its score.
final class TargetScoreTests: FolderTestCase {
    func testEachPhotoScoresTheTargetWithinTheBudget() throws {
        for (index, photo) in ["photos/jolla.jpg", "photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/iphone_13_pro_max.HEIC"].enumerated() {
            try copy(photo, to: "sku/\(index)." + (photo as NSString).pathExtension)
        }
        func prepare(_ inputs: [String], into folder: String, maxBytes: Int = PrepareOptions().maxBytes, targetScore: Double?) throws -> FolderReport {
            var options = PrepareOptions()
            options.maxEdge = 600
            options.minQuality = 40
            options.maxBytes = maxBytes
            options.targetScore = targetScore
            let report = try FolderProcessor(job: FolderJob(inputs: inputs, outputFolder: output + "/" + folder, prepare: options)).run()
            XCTAssertTrue(report.succeeded, "\(report.failed)")
            return report
        }
        let scored = try prepare([input + "/sku"], into: "scored", targetScore: 85)
        _ = try prepare([input + "/sku"], into: "plain", targetScore: nil)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output + "/scored/manifest.json"))) as? [String: Any]
        let outputs = try XCTUnwrap(manifest?["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.count, 4)
        let json = String(decoding: try JSONEncoder().encode(scored), as: UTF8.self)
        XCTAssertEqual(json.components(separatedBy: "\"score\":").count - 1, 4, "the score in the report: \(json)")
        var pairs: [String] = [], scores: [Double] = []
        for entry in outputs {
            let (file, bytes) = (try XCTUnwrap(entry["output"] as? String), try XCTUnwrap(entry["bytes"] as? Int))
            // At the top of the quality range a photo may still fall short: then it is named with its score.
            let score = try XCTUnwrap(entry["score"] as? Double)
            let warned = (entry["warnings"] as? [String] ?? []).contains { $0.hasPrefix("looks \(Int(score.rounded(.down)))/100, under --target-score 85") }
            XCTAssertTrue(score >= 85 || warned, "\(file): \(entry)")
            scores.append(score)
            XCTAssertLessThanOrEqual(bytes, 300_000)
            let plainBytes = try FileManager.default.attributesOfItem(atPath: output + "/plain/" + file)[.size] as? Int ?? 0
            // Unless 4:2:0 falls short of the target even at the top quality, and only 4:4:4 reaches it.
            if try Exiftool.value(of: "YCbCrSubSampling", in: output + "/scored/" + file) == "YCbCr4:4:4 (1 1)" {
                XCTAssertGreaterThanOrEqual(score, 85, "\(file): 4:4:4 for a score 4:2:0 cannot reach")
            } else {
                XCTAssertLessThanOrEqual(bytes, plainBytes, "\(file): the lowest quality that looks right is no larger than the best that fits")
            }
            // The photo fitted as prepare fits it, losslessly: the reference both metrics judge against.
            let source = try XCTUnwrap(entry["source"] as? String)
            let reference = root + "/reference-\(pairs.count).png"
            try ImageRenderer(spec: RenderSpec(width: 600, height: 600, format: .png)).render(.file(output + "/scored/" + source), maxPixels: .max)
                .data.write(to: URL(fileURLWithPath: reference))
            pairs += [reference, output + "/scored/" + file]
        }
        let script = """
        import sys
        from ssimulacra2 import compute_ssimulacra2
        for reference, distorted in zip(sys.argv[1::2], sys.argv[2::2]):
            print(compute_ssimulacra2(reference, distorted))
        """
        let theirs = String(decoding: try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script] + pairs), as: UTF8.self)
            .split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(theirs.count, 4)
        for (ours, their) in zip(scores, theirs) { XCTAssertEqual(ours, their, accuracy: 1, "by PyPI's ssimulacra2: \(theirs)") }

        // A budget too small for the target: the best that fits, named with its score.
        let tight = try prepare([input + "/sku/0.jpg"], into: "tight", maxBytes: 60_000, targetScore: 95)
        XCTAssertTrue(tight.warnings.contains { $0.hasPrefix(input + "/sku/0.jpg: looks ") && $0.hasSuffix("/100, under --target-score 95: 60000 bytes allow no better") },
                      "\(tight.warnings)")
        let written = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: output + "/tight").first { $0.hasSuffix(".jpg") })
        XCTAssertLessThanOrEqual(try FileManager.default.attributesOfItem(atPath: output + "/tight/" + written)[.size] as? Int ?? .max, 60_000)
    }
}

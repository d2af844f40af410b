import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Our SSIMULACRA2 (C, float) against PyPI's `ssimulacra2` (Python, float64) on the same pairs of
/// files: real photos at two sizes, each against JPEGs of three qualities and deliberately damaged
/// copies (blur, blocks, a colour shift). The scores agree within a point, and rank the damage alike.
final class Ssimulacra2Tests: XCTestCase {
    func testAgreesWithPyPIsSsimulacra2AndRanksDamageAlike() throws {
        let folder = try temporaryFolder(self)
        let photos = ["photos/jolla.jpg", "photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/iphone_13_pro_max.HEIC",
                      "alpha/Flag_of_the_Netherlands-alpha.png", "color/concert.jpg"]
        var pairs: [(reference: String, distorted: String, ours: Double)] = []
        for (index, photo) in photos.enumerated() {
            for edge in [240, 400] {
                let reference = try DecodedImage.decode(file: Fixture.path(photo), maxPixels: .max) { _ in (edge, edge) }.flattened()
                let referencePath = folder + "/\(index)-\(edge).png"
                try ImageEncoder.encode(reference, as: .png, quality: 0, settings: EncoderSettings()).write(to: URL(fileURLWithPath: referencePath))
                var distortions: [(String, DecodedImage)] = []
                for quality in [30, 60, 90] {
                    let jpeg = try ImageEncoder.encode(reference, as: .jpeg, quality: quality, settings: EncoderSettings())
                    distortions.append(("q\(quality)", try DecodedImage.decode(.data(jpeg), maxPixels: .max) { _ in (edge, edge) }))
                }
                distortions.append(("blur", try reference.filtered(blur: 1.5, sharpen: 0)))
                distortions.append(("blocks", try reference.pixelated(size: 4)))
                let red = try reference.cropped(x: 0, y: 0, width: 1, height: 1)
                    .embedded(x: 0, y: 0, width: reference.width, height: reference.height, colour: [255, 0, 0])
                distortions.append(("tint", try reference.overlaid(with: red, x: 0, y: 0, opacity: 0.08)))
                for (name, image) in distortions {
                    let path = folder + "/\(index)-\(edge)-\(name).png"
                    try ImageEncoder.encode(image, as: .png, quality: 0, settings: EncoderSettings()).write(to: URL(fileURLWithPath: path))
                    pairs.append((referencePath, path, try Ssimulacra2.score(reference, image)))
                }
                XCTAssertEqual(try Ssimulacra2.score(reference, reference), 100, accuracy: 1e-6, "identical images score 100")
            }
        }
        let script = """
        import sys
        from ssimulacra2 import compute_ssimulacra2
        for reference, distorted in zip(sys.argv[1::2], sys.argv[2::2]):
            print(compute_ssimulacra2(reference, distorted))
        """
        let output = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script] + pairs.flatMap { [$0.reference, $0.distorted] })
        let theirs = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(theirs.count, pairs.count)
        var worst = 0.0
        for (pair, their) in zip(pairs, theirs) {
            worst = max(worst, abs(pair.ours - their))
            XCTAssertEqual(pair.ours, their, accuracy: 1, "\(pair.distorted)")
        }
        print("SSIMULACRA2: worst difference from PyPI's over \(pairs.count) pairs: \(worst)")
        // Each photo's damage ranked alike by both, wherever ours tells two apart by more than 2 points.
        for start in stride(from: 0, to: pairs.count, by: 6) {
            for i in start..<start + 6 {
                for j in start..<start + 6 where pairs[i].ours > pairs[j].ours + 2 {
                    XCTAssertGreaterThan(theirs[i], theirs[j], "\(pairs[i].distorted) over \(pairs[j].distorted)")
                }
            }
        }
    }

    /// A perceptual target through the renderer, set at the worst score a fixed quality 80 gives on
    /// the set (the comparison): each output scores at least the target by PyPI's metric too
    /// (within our agreement with it), the set takes fewer bytes than at quality 80, a byte budget
    /// beside the target is never exceeded, and a handful of encodes find each quality. In JPEG, and
    /// in JPEG XL read back by libjxl's `djxl` for PyPI's metric.
    func testATargetScoreGivesTheSmallestOutputThatLooksRight() throws {
        for format in [OutputFormat.jpeg, .jxl] { try checkTargetScore(format) }
    }

    private func checkTargetScore(_ format: OutputFormat) throws {
        let folder = try temporaryFolder(self)
        let photos = ["photos/jolla.jpg", "photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/iphone_13_pro_max.HEIC",
                      "photos/2569067123_aca715a2ee_o.jpg", "color/concert.jpg"]
        var spec = RenderSpec(width: 240, height: 240, resizing: .fill, format: format, quality: 80)
        spec.minQuality = 30
        let renderer = try ImageRenderer(spec: spec)
        let pixels = try photos.map { photo throws in try renderer.pixels(try renderer.decode(.file(Fixture.path(photo)), maxPixels: .max)) }
        let fixed = try pixels.map { image throws in try renderer.encode(image) }
        let fixedScores = try zip(pixels, fixed).map { image, output throws in
            try Ssimulacra2.score(image, try DecodedImage.readingBack(output.data))
        }
        spec.targetScore = try XCTUnwrap(fixedScores.min())
        spec.quality = 95
        var arguments: [String] = [], bytes = (fixed: 0, chosen: 0), encodes = 0
        let (most, mean) = format == .jpeg ? (11, 9) : (8, 6)
        for (index, (photo, image)) in zip(photos, pixels).enumerated() {
            let chosen = try ImageRenderer(spec: spec).encode(image)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(chosen.score), try XCTUnwrap(spec.targetScore), "\(photo) \(format)")
            // A flat photo's scores barely rise with quality, and not monotonically: it takes the most.
            // A JPEG's encodes include those that size 4:4:4 (no score).
            XCTAssertLessThanOrEqual(chosen.encodes, most, "\(photo) \(format): a handful of encodes")
            encodes += chosen.encodes
            bytes.fixed += fixed[index].data.count
            bytes.chosen += chosen.data.count
            var budget = spec
            budget.maxBytes = 3_000
            XCTAssertLessThanOrEqual(try ImageRenderer(spec: budget).encode(image).data.count, 3_000, "\(photo) \(format): the budget still caps")
            let (reference, output) = (folder + "/\(index).png", folder + "/\(index)-output.png")
            try ImageEncoder.encode(image, as: .png, quality: 0, settings: EncoderSettings()).write(to: URL(fileURLWithPath: reference))
            try (format == .jxl ? try Djxl.png(from: chosen.data, in: folder) : chosen.data).write(to: URL(fileURLWithPath: output))
            arguments += [reference, output]
        }
        XCTAssertLessThanOrEqual(encodes, mean * photos.count, "\(format): about \(mean) encodes a photo")
        XCTAssertLessThan(bytes.chosen, bytes.fixed, "\(format): fewer bytes than quality 80 at no lower worst score: \(bytes)")
        let script = """
        import sys
        from ssimulacra2 import compute_ssimulacra2
        for reference, distorted in zip(sys.argv[1::2], sys.argv[2::2]):
            print(compute_ssimulacra2(reference, distorted))
        """
        let theirs = String(decoding: try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script] + arguments), as: UTF8.self)
            .split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(theirs.count, photos.count)
        for (photo, their) in zip(photos, theirs) {
            XCTAssertGreaterThanOrEqual(their, try XCTUnwrap(spec.targetScore) - 0.5, "\(photo) \(format) by PyPI's ssimulacra2")
        }
    }

    /// 4:4:4 where it is fewer bytes for the same looks: lettering in red and blue, whose colour
    /// edges 4:2:0 smears, comes out 4:4:4, and no 4:2:0 JPEG as small reaches the target; a photo
    /// stays 4:2:0. The output says which (ExifTool reads the sampling back).
    func testAJPEGIsMadeFullChromaWhereThatIsFewerBytesForTheLooks() throws {
        let folder = try temporaryFolder(self)
        try GeneratedImage.lettering(width: 240, height: 240, to: folder + "/lettering.png")
        var spec = RenderSpec(width: 240, height: 240, resizing: .fill, format: .jpeg, quality: 95)
        (spec.minQuality, spec.targetScore) = (30, 80)
        for (source, full) in [(folder + "/lettering.png", true), (Fixture.path("photos/jolla.jpg"), false)] {
            let renderer = try ImageRenderer(spec: spec)
            let image = try renderer.pixels(try renderer.decode(.file(source), maxPixels: .max))
            let chosen = try renderer.encode(image)
            XCTAssertEqual(chosen.fullChroma, full, source)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(chosen.score), 80, source)
            try chosen.data.write(to: URL(fileURLWithPath: folder + "/chosen.jpg"))
            XCTAssertEqual(try Exiftool.value(of: "YCbCrSubSampling", in: folder + "/chosen.jpg"), full ? "YCbCr4:4:4 (1 1)" : "YCbCr4:2:0 (2 2)")
            guard full else { continue }
            let subsampled = try (30...95).map { quality in try ImageEncoder.encode(image, as: .jpeg, quality: quality, settings: spec.encoder) }
                .last { $0.count <= chosen.data.count }
            if let subsampled {
                XCTAssertLessThan(try Ssimulacra2.score(image, try DecodedImage.readingBack(subsampled)), 80, "4:2:0 as small looks worse")
            }
        }
    }

    /// What a score cannot judge (PNG has no quality; an image under 8 pixels has no score) is
    /// encoded as without a target: a byte budget beside the target still holds.
    func testAnOutputTheScoreCannotJudgeStillKeepsItsBudget() throws {
        let folder = try temporaryFolder(self)
        try GeneratedImage.noise(width: 300, height: 300, to: folder + "/noise.png")
        var spec = RenderSpec(width: 300, height: 300, format: .png, maxBytes: 40_000)
        spec.targetScore = 80
        let png = try ImageRenderer(spec: spec).render(.file(folder + "/noise.png"), maxPixels: .max)
        XCTAssertLessThanOrEqual(png.data.count, 40_000, "a PNG shrinks to its budget, target or not")
        XCTAssertNil(png.score)
        // A 7-pixel-wide strip of noise, with a budget three quarters of its size at quality 80.
        (spec.width, spec.height, spec.resizing, spec.format, spec.maxBytes) = (7, 300, .force, .jpeg, nil)
        let budget = try ImageRenderer(spec: spec).render(.file(folder + "/noise.png"), maxPixels: .max).data.count * 3 / 4
        spec.maxBytes = budget
        let strip = try ImageRenderer(spec: spec).render(.file(folder + "/noise.png"), maxPixels: .max)
        XCTAssertEqual([strip.width, strip.height], [7, 300])
        XCTAssertLessThanOrEqual(strip.data.count, budget)
        XCTAssertLessThan(try XCTUnwrap(strip.quality), 80)
    }
}

import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// `prepare` and `thumbs` started as a seller starts them: what they write, read back by pixels,
/// by ExifTool and by byte.
final class PrepareCommandTests: FolderTestCase {
    /// `prepare --trim` cuts a uniform border (here 40 px of white padding); without it the border stays.
    func testPrepareTrimCutsAUniformBorder() throws {
        let folder = try temporaryFolder(self)
        var spec = RenderSpec(width: 400, height: 400, format: .png)
        spec.padding = RenderSpec.Padding(top: 40, right: 40, bottom: 40, left: 40)
        let bordered = try ImageRenderer(spec: spec).render(.file(Fixture.path("photos/DSCN0010.jpg")), maxPixels: .max)
        try bordered.data.write(to: URL(fileURLWithPath: folder + "/bordered.png"))
        for (flags, size) in [(["--trim"], (bordered.width - 80, bordered.height - 80)), ([], (bordered.width, bordered.height))] {
            let out = folder + "/out-\(flags.count)"
            let result = try CommandLineTool.run(["prepare", folder + "/bordered.png", "--out", out] + flags)
            XCTAssertEqual(result.status, 0, result.stderr)
            let prepared = try ImageHeader.read(file: out + "/bordered.jpg")
            XCTAssertEqual(Double(prepared.width), Double(size.0), accuracy: 1, "\(flags)")
            XCTAssertEqual(Double(prepared.height), Double(size.1), accuracy: 1, "\(flags)")
        }
    }

    /// `thumbs --crop pad`: every variant a full square, the photo whole inside, on its edge colour.
    func testThumbsPadFillsTheSquareWithTheWholePhoto() throws {
        let out = try temporaryFolder(self)
        let result = try CommandLineTool.run(["thumbs", Fixture.path("photos/jolla.jpg"), "--out", out, "--crop", "pad"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for name in ["jolla.list@2x.jpg", "jolla.grid@3x.jpg"] {
            let image = try ImageHeader.read(file: out + "/" + name)
            XCTAssertEqual(image.width, image.height, name)
            XCTAssertEqual(image.width, name.contains("list") ? 160 : 600, name)
        }
    }

    /// The shrink's AVX2 path and its SSE2 path (`MARKET_IMAGES_NO_AVX2`, and any x86-64 CPU without
    /// AVX2) do the same integer arithmetic: `thumbs` writes the same bytes either way.
    func testTheSSE2PathWritesTheSameBytesAsTheAVX2Path() throws {
        let folder = try temporaryFolder(self)
        let inputs = ["photos/jolla.jpg", "photos/2569067123_aca715a2ee_o.jpg", "orientation/Landscape_5.jpg"].map(Fixture.path)
        var outputs: [[String: Data]] = []
        for environment in [[:], ["MARKET_IMAGES_NO_AVX2": "1"]] {
            let out = folder + "/out-\(outputs.count)"
            let result = try CommandLineTool.run(["thumbs"] + inputs + ["--out", out], environment: environment)
            XCTAssertEqual(result.status, 0, result.stderr)
            let names = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.hasSuffix(".jpg") }
            outputs.append(Dictionary(uniqueKeysWithValues: try names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0))) }))
        }
        XCTAssertEqual(outputs[0].count, 12, "4 sizes of 3 photos")
        XCTAssertEqual(outputs[0], outputs[1])
    }

    /// Every command and output format, from inputs in every format stuffed with EXIF, GPS, XMP,
    /// IPTC and Nikon maker notes: ExifTool finds nothing but the container in any output.
    func testExifToolFindsNothingInAnyOutputOfAnyCommand() throws {
        let inputs = ["jpg", "png", "webp", "tif"].map { Fixture.path("metadata/everything.\($0)") }
            + [Fixture.path("photos/iphone_13_pro_max.HEIC"), Fixture.path("photos/DSCN0010.jpg")]
        let before = try Exiftool.metadata(in: inputs)
        for input in inputs {
            XCTAssertTrue(before[input]?.contains { $0.hasPrefix("ExifIFD:") || $0.hasSuffix(":UnknownEXIF") } ?? false,
                          "the reader must see the input's metadata for this test to mean anything: \(input)")
        }
        let root = try temporaryFolder(self)
        let runs = [["prepare"], ["prepare", "--format", "png", "--max-bytes", "2000000"],
                    ["thumbs"], ["thumbs", "--format", "webp"], ["thumbs", "--format", "jxl"], ["prepare", "--thumbs", "--thumb-format", "webp"]]
        for (index, command) in runs.enumerated() {
            let result = try CommandLineTool.run(command + inputs + ["--out", "\(root)/\(index)"])
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
        }
        let outputs = (FileManager.default.subpaths(atPath: root) ?? [])
            .filter { ["jpg", "png", "webp", "jxl"].contains(($0 as NSString).pathExtension) }.map { root + "/" + $0 }
        XCTAssertGreaterThanOrEqual(outputs.count, inputs.count * (2 + 4 + 4 + 4 + 5), "every run wrote its outputs")
        let found = try Exiftool.metadata(in: outputs)
        XCTAssertEqual(found.count, outputs.count)
        for (path, tags) in found { XCTAssertEqual(tags, [], path) }
    }

    /// What the probe found: this number killed the process with SIGILL.
    func testAHugeMaxEdgeOnTheCommandLineIsAUsageError() throws {
        for arguments in [["prepare", "--max-edge", "3000000000"], ["prepare", "--max-bytes", "9223372036854775807"],
                          ["thumbs", "--variant", "x=3000000000"], ["prepare", "--jobs", "100000000"]] {
            let result = try CommandLineTool.run(arguments + [Fixture.path("photos/DSCN0010.jpg"), "--out", NSTemporaryDirectory() + "/bounds-\(UUID())"])
            XCTAssertNil(result.signal, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("out of range") || result.stderr.contains("must be"), result.stderr)
        }
    }
}

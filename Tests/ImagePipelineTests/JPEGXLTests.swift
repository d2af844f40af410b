import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// JPEG XL outputs read back by libjxl's own decoder (`djxl`), not by libvips: the size asked for,
/// upright by pixels, and no metadata by ExifTool or by walking the bytes.
final class JPEGXLTests: XCTestCase {
    func testAllEightOrientationsComeOutUprightAndBare() throws {
        let folder = try temporaryFolder(self)
        let renderer = try ImageRenderer(spec: RenderSpec(width: 600, height: 600, resizing: .fit, format: .jxl, quality: 77))
        var files: [String] = []
        let outputs = try Fixture.orientations.enumerated().map { index, path in
            let encoded = try renderer.render(.file(path), maxPixels: .max)
            XCTAssertEqual(encoded.format, .jxl)
            XCTAssertEqual(Array(encoded.data.prefix(2)), [0xFF, 0x0A], "a bare codestream")
            XCTAssertEqual(ContainerMetadata.kinds(in: encoded.data), [])
            let file = folder + "/orientation-\(index + 1).jxl"
            try encoded.data.write(to: URL(fileURLWithPath: file))
            files.append(file)
            return try readBack(try Djxl.png(from: encoded.data, in: folder), in: folder).image
        }
        let reference = try outputs[0].grid()
        for (index, output) in outputs.enumerated() {
            XCTAssertEqual([output.width, output.height], [600, 450], "orientation \(index + 1)")
            XCTAssertLessThan(largestDifference(try output.grid(), reference), 12, "orientation \(index + 1)")
        }
        XCTAssertEqual(try Exiftool.metadata(in: files).values.flatMap { $0 }, [])
    }

    /// The checks above can fail: libjxl's own encoder keeps a JPEG's EXIF and XMP in boxes, and both
    /// readers see them.
    func testAJPEGXLWithMetadataIsCaught() throws {
        let folder = try temporaryFolder(self)
        let file = folder + "/kept.jxl"
        _ = try ProcessOutput.run("/usr/bin/cjxl", [Fixture.path("metadata/everything.jpg"), file])
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        XCTAssertTrue(ContainerMetadata.kinds(in: data).contains("EXIF"), "\(ContainerMetadata.kinds(in: data))")
        XCTAssertFalse(try Exiftool.metadata(in: [file]).values.flatMap { $0 }.isEmpty)
    }

    /// A lower quality is fewer bytes, and the byte budget holds (`testByteBudgetHoldsInEveryFormat`
    /// covers the search); an animation comes out as its first frame, which browsers can show.
    func testQualityAndAnimationsInJPEGXL() throws {
        let folder = try temporaryFolder(self)
        let sizes = try [50, 90].map { quality in
            try ImageRenderer(spec: RenderSpec(width: 400, height: 400, format: .jxl, quality: quality)).render(.file(Fixture.path("photos/jolla.jpg")), maxPixels: .max).byteCount
        }
        XCTAssertLessThan(sizes[0], sizes[1])
        let gif = folder + "/three.gif"
        try PillowAnimation.gif(width: 40, height: 30, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], durations: [100, 100, 100], to: gif)
        var spec = RenderSpec(width: 40, height: 40, resizing: .fit, format: .jxl, quality: 90)
        spec.frames = 3
        let still = try ImageRenderer(spec: spec).render(.file(gif), maxPixels: .max)
        let image = try readBack(try Djxl.png(from: still.data, in: folder), in: folder).image
        XCTAssertEqual([image.width, image.height], [40, 30])
        XCTAssertEqual(Array(try image.mean(x: 0, y: 0, width: 40, height: 30).prefix(3)), [255, 0, 0], accuracy: 8)
    }
}

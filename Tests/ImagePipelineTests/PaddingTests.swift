import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Extension, padding and background, judged by pixels: the output is exactly the box, the padding
/// is the background colour, and the whole product is inside.
final class PaddingTests: XCTestCase {
    private let photo = Fixture.path("photos/jolla.jpg")

    private func render(_ configure: (inout RenderSpec) -> Void) throws -> DecodedImage {
        var spec = RenderSpec(width: 300, height: 300, resizing: .fit, format: .png)
        configure(&spec)
        let output = try ImageRenderer(spec: spec).render(.file(photo), maxPixels: .max)
        return try DecodedImage.decode(.data(output.data), maxPixels: .max) { _ in (4096, 4096) }
    }

    func testExtendCentresTheWholePhotoOnTheBackground() throws {
        let source = try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (300, 300) }
        XCTAssertGreaterThan(source.width, source.height, "a landscape photo, so the square has bands above and below")
        let image = try render { spec in
            spec.extend = true
            spec.background = .colour(red: 255, green: 0, blue: 0)
        }
        XCTAssertEqual([image.width, image.height], [300, 300])
        let band = (300 - source.height) / 2
        for y in [0, 299 - band + 2] {
            XCTAssertEqual(try image.image.meanBands(x: 0, y: y, width: 300, height: band - 2).map { $0.rounded() }, [255, 0, 0], "row \(y)")
        }
        let middle = try image.image.meanBands(x: 0, y: band + 2, width: 300, height: source.height - 4)
        XCTAssertNotEqual(middle.map { $0.rounded() }, [255, 0, 0], "the photo itself, whole, in the middle")
        XCTAssertEqual(try source.image.meanBands(x: 0, y: 0, width: source.width, height: source.height).map { $0.rounded() },
                       middle.map { $0.rounded() }, accuracy: 3)
    }

    func testPaddingAspectRatioAndTheEdgeColour() throws {
        let padded = try render { spec in
            (spec.width, spec.height) = (200, 0)
            spec.padding = RenderSpec.Padding(top: 10, right: 20, bottom: 30, left: 40)
            spec.background = .colour(red: 0, green: 0, blue: 255)
        }
        let fitted = try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (200, DecodedImage.unbounded) }
        XCTAssertEqual([padded.width, padded.height], [200 + 60, fitted.height + 40])
        XCTAssertEqual(try padded.image.meanBands(x: 0, y: 0, width: 40, height: padded.height).map { $0.rounded() }, [0, 0, 255])

        let wide = try render { spec in
            (spec.width, spec.height) = (400, 100)
            spec.extendAspectRatio = true
        }
        XCTAssertEqual(Double(wide.width) / Double(wide.height), 4, accuracy: 0.02)

        let edge = try render { spec in
            spec.extend = true
            spec.background = .edge
        }
        let ring = try render { spec in spec.extend = false }.edgeColour()
        XCTAssertEqual(try edge.image.meanBands(x: 0, y: 0, width: 300, height: 10).map { $0.rounded() }, ring, accuracy: 1,
                       "bg:auto continues the photo's own edge")
    }

    /// A synthetic 40 px white border is cut off within a pixel, by a URL's `trim` and by `prepare`'s
    /// `trim`; without it the border stays.
    func testTrimRemovesAUniformBorder() throws {
        let inner = try DecodedImage.decode(file: Fixture.path("photos/DSCN0010.jpg"), maxPixels: .max) { _ in (400, 400) }
        let bordered = try inner.embedded(x: 40, y: 40, width: inner.width + 80, height: inner.height + 80, colour: [255, 255, 255])
        let folder = try temporaryFolder(self)
        try ImageEncoder.encode(bordered, as: .png, quality: 100, settings: EncoderSettings(progressive: false)).write(to: URL(fileURLWithPath: folder + "/bordered.png"))

        var spec = RenderSpec(format: .png)
        spec.trim = RenderSpec.Trim()
        let trimmed = try ImageRenderer(spec: spec).render(.file(folder + "/bordered.png"), maxPixels: .max)
        XCTAssertEqual(Double(trimmed.width), Double(inner.width), accuracy: 1)
        XCTAssertEqual(Double(trimmed.height), Double(inner.height), accuracy: 1)

        for (trim, size) in [(true, (inner.width, inner.height)), (false, (bordered.width, bordered.height))] {
            var options = PrepareOptions()
            options.trim = trim
            let prepared = try ImagePreparer(options: options).prepare(file: folder + "/bordered.png")
            XCTAssertEqual(Double(prepared.width), Double(size.0), accuracy: 1, "trim: \(trim)")
            XCTAssertEqual(Double(prepared.height), Double(size.1), accuracy: 1, "trim: \(trim)")
        }
    }

    /// A cut-out on a transparent border is trimmed to what shows, by its alpha: the border's
    /// invisible pixels are noise, so no colour describes it (imgproxy trims such a border too).
    func testTrimRemovesATransparentBorderByItsAlpha() throws {
        let folder = try temporaryFolder(self)
        try GeneratedImage.cutOut(width: 300, height: 200, inner: (x: 70, y: 40, width: 120, height: 90), to: folder + "/cut-out.png")
        var spec = RenderSpec(format: .png)
        spec.trim = RenderSpec.Trim()
        let trimmed = try ImageRenderer(spec: spec).render(.file(folder + "/cut-out.png"), maxPixels: .max)
        XCTAssertEqual([trimmed.width, trimmed.height], [120, 90])
        let (header, image) = try readBack(trimmed.data, in: folder)
        XCTAssertTrue(header.hasAlpha)
        XCTAssertEqual(try image.mean(x: 0, y: 0, width: 120, height: 90), [255, 0, 0, 255], accuracy: 0.5, "only the opaque red is left")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// imgproxy's geometry and effects as render steps, judged by pixels on four flat quadrants (red,
/// green / blue, yellow) and on a real photo: where each corner went, the exact sizes, and what a
/// filter does to an edge.
final class RenderStepTests: XCTestCase {
    private var quadrants = ""
    private let (red, green, blue, yellow) = (GeneratedImage.quadrantColours[0], GeneratedImage.quadrantColours[1],
                                              GeneratedImage.quadrantColours[2], GeneratedImage.quadrantColours[3])

    override func setUpWithError() throws {
        quadrants = try temporaryFolder(self) + "/quadrants.png"
        try GeneratedImage.quadrants(width: 400, height: 200, to: quadrants)
    }

    private func render(_ path: String? = nil, _ configure: (inout RenderSpec) -> Void) throws -> DecodedImage {
        var spec = RenderSpec(format: .png)
        configure(&spec)
        let output = try ImageRenderer(spec: spec).render(.file(path ?? quadrants), maxPixels: .max)
        return try DecodedImage.decode(.data(output.data), maxPixels: .max) { _ in (100_000, 100_000) }
    }

    /// The colour 10% in from each corner: top left, top right, bottom left, bottom right.
    private func corners(_ image: DecodedImage) throws -> [[Double]] {
        let (dx, dy) = (image.width / 10, image.height / 10)
        return try [(dx, dy), (image.width - dx - 1, dy), (dx, image.height - dy - 1), (image.width - dx - 1, image.height - dy - 1)]
            .map { try image.mean(x: $0.0, y: $0.1, width: 1, height: 1).map { $0.rounded() } }
    }

    func testRotateTurnsClockwiseAndSwapsTheSides() throws {
        let turned = try render { $0.rotation = 90 }
        XCTAssertEqual([turned.width, turned.height], [200, 400])
        XCTAssertEqual(try corners(turned), [blue, red, yellow, green], "a quarter turn clockwise: the bottom left comes to the top left")
        let half = try render { $0.rotation = 180 }
        XCTAssertEqual(try corners(half), [yellow, blue, green, red])
        // The box is the turned image's: 100 wide fits the 200-wide turned image in 100×200.
        let fitted = try render { spec in (spec.rotation, spec.width) = (270, 100) }
        XCTAssertEqual([fitted.width, fitted.height], [100, 200])
        XCTAssertEqual(try corners(fitted), [green, yellow, red, blue])
    }

    func testFlipMirrorsEachAxis() throws {
        XCTAssertEqual(try corners(try render { $0.flipHorizontal = true }), [green, red, yellow, blue])
        XCTAssertEqual(try corners(try render { $0.flipVertical = true }), [blue, yellow, red, green])
        // imgproxy turns first, then mirrors.
        XCTAssertEqual(try corners(try render { spec in (spec.rotation, spec.flipHorizontal) = (90, true) }), [red, blue, green, yellow])
    }

    func testCropCutsBeforeTheResizeInSourcePixelsOrFractions() throws {
        let corner = try render { $0.crop = RenderSpec.Crop(width: 100, height: 50, gravity: .northWest) }
        XCTAssertEqual([corner.width, corner.height], [100, 50])
        XCTAssertEqual(Set(try corners(corner)), [red], "only the red quadrant")
        let half = try render { spec in
            spec.crop = RenderSpec.Crop(width: 0.5, height: 0, gravity: .east)
            (spec.width, spec.height) = (50, 50)
        }
        XCTAssertEqual([half.width, half.height], [50, 50], "the right half (200×200) fitted into 50×50")
        XCTAssertEqual(try corners(half), [green, green, yellow, yellow])
        // Pixel offsets move the cut inwards from its edge; the crop's own gravity wins over the spec's.
        let offset = try render { spec in
            spec.gravity = .northWest
            spec.crop = RenderSpec.Crop(width: 100, height: 100, gravity: .southEast, offset: RenderSpec.Offset(x: 200, y: 0))
        }
        XCTAssertEqual(try corners(offset), [blue, blue, blue, blue], "200 px in from the right edge: the blue quadrant")
        // A photo decoded smaller (shrink on load) is cut in its source's pixels all the same.
        let photo = Fixture.path("photos/jolla.jpg")
        let header = try ImageHeader.read(file: photo)
        let cut = try render(photo) { spec in
            spec.crop = RenderSpec.Crop(width: Double(header.uprightWidth / 2), height: Double(header.uprightHeight / 2))
            (spec.width, spec.height) = (200, 200)
        }
        XCTAssertEqual(Double(cut.width) / Double(cut.height), Double(header.uprightWidth) / Double(header.uprightHeight), accuracy: 0.02)
        XCTAssertEqual(max(cut.width, cut.height), 200)
    }

    func testGravityOffsetsAndFocusPoint() throws {
        // A 100×100 fill of the 400×200 image covers at half size: 200×100, of which 100×100 is cut.
        func fill(_ gravity: RenderSpec.Gravity, _ offset: RenderSpec.Offset) throws -> [[Double]] {
            try corners(try render { spec in
                (spec.width, spec.height, spec.resizing, spec.gravity, spec.gravityOffset) = (100, 100, .fill, gravity, offset)
            })
        }
        XCTAssertEqual(try fill(.west, RenderSpec.Offset()), [red, red, blue, blue])
        XCTAssertEqual(try fill(.east, RenderSpec.Offset()), [green, green, yellow, yellow])
        XCTAssertEqual(try fill(.west, RenderSpec.Offset(x: 100, y: 0)), [green, green, yellow, yellow], "100 px from the left edge: the right half")
        XCTAssertEqual(try fill(.centre, RenderSpec.Offset(x: -0.25, y: 0)), [red, red, blue, blue], "a quarter of the width to the left")
        XCTAssertEqual(try fill(.focusPoint, RenderSpec.Offset(x: 1, y: 0.5)), [green, green, yellow, yellow], "centred on the right edge, kept inside")
        XCTAssertEqual(try fill(.focusPoint, RenderSpec.Offset(x: 0.1, y: 0.5)), [red, red, blue, blue])
    }

    func testZoomScalesAnUnsizedOutputAndMinimumSizesEnlarge() throws {
        let zoomed = try render { $0.zoom = RenderSpec.Offset(x: 0.5, y: 0.25) }
        XCTAssertEqual([zoomed.width, zoomed.height], [200, 50])
        let notEnlarged = try render { $0.zoom = RenderSpec.Offset(x: 2, y: 2) }
        XCTAssertEqual([notEnlarged.width, notEnlarged.height], [400, 200], "zoom does not enlarge without enlarge")
        // min-width enlarges whatever `enlarge` says (imgproxy's rule), keeping the aspect ratio.
        let wide = try render { spec in (spec.width, spec.height, spec.minWidth) = (100, 100, 300) }
        XCTAssertEqual([wide.width, wide.height], [300, 150])
        let tall = try render { spec in (spec.width, spec.height, spec.minHeight) = (100, 100, 400) }
        XCTAssertEqual([tall.width, tall.height], [800, 400])
        // With a fill the box still crops: min-height 150 scales the cover up, the cut stays 100×100.
        let filled = try render { spec in (spec.width, spec.height, spec.resizing, spec.minHeight) = (100, 100, .fill, 150) }
        XCTAssertEqual([filled.width, filled.height], [100, 100])
        XCTAssertEqual(Set(try corners(filled)), [red, green, blue, yellow].reduce(into: Set<[Double]>()) { $0.insert($1) },
                       "a centre cut of the 300×150 cover shows all four quadrants")
    }

    /// Contrast across the quadrants' vertical edge: the mean difference between the columns two
    /// pixels either side of it, in the top half (red against green).
    private func edgeContrast(_ image: DecodedImage) throws -> Double {
        let middle = image.width / 2
        let left = try image.mean(x: middle - 2, y: 10, width: 1, height: image.height / 2 - 20)
        let right = try image.mean(x: middle + 1, y: 10, width: 1, height: image.height / 2 - 20)
        return zip(left, right).map { abs($0 - $1) }.reduce(0, +)
    }

    func testBlurLowersAndSharpenRaisesEdgeContrast() throws {
        let photo = Fixture.path("photos/jolla.jpg")
        let plain = try render(photo) { $0.width = 400 }
        let blurred = try render(photo) { spec in (spec.width, spec.blur) = (400, 3) }
        let sharpened = try render(photo) { spec in (spec.width, spec.sharpen) = (400, 1.5) }
        XCTAssertEqual([blurred.width, sharpened.width], [400, 400])
        XCTAssertLessThan(try edgeContrast(try render { $0.blur = 3 }), try edgeContrast(try render { _ in }) * 0.9)
        let (plainEdges, blurredEdges, sharpEdges) = (try gradient(plain), try gradient(blurred), try gradient(sharpened))
        XCTAssertLessThan(blurredEdges, plainEdges * 0.7, "blur: softer edges on the photo")
        XCTAssertGreaterThan(sharpEdges, plainEdges * 1.05, "sharpen: crisper edges on the photo")
    }

    /// Mean absolute difference between horizontal neighbours: how much edge a photo has.
    /// Read from the pixels in memory: a libvips mean per pixel took 20 s for the three images.
    private func gradient(_ image: DecodedImage) throws -> Double {
        try image.withSRGBBytes(alpha: false) { bytes in
            let bands = bytes.count / (image.width * image.height)
            var total = 0
            for x in stride(from: 0, to: image.width - 1, by: 7) {
                for y in stride(from: 0, to: image.height, by: 7) {
                    let here = (y * image.width + x) * bands
                    for band in 0..<bands { total += abs(Int(bytes[here + band]) - Int(bytes[here + bands + band])) }
                }
            }
            return Double(total)
        }
    }

    func testPixelateMakesUniformBlocks() throws {
        let photo = Fixture.path("photos/jolla.jpg")
        let image = try render(photo) { spec in (spec.width, spec.pixelate) = (400, 20) }
        XCTAssertEqual(image.width, 400)
        for (x, y) in [(0, 0), (20, 40), (380, 100)] {
            let block = try image.image.meanBands(x: x, y: y, width: 20, height: 20)
            for (dx, dy) in [(0, 0), (19, 19), (7, 13)] {
                XCTAssertEqual(try image.mean(x: x + dx, y: y + dy, width: 1, height: 1), block, accuracy: 1.5, "block at \(x),\(y)")
            }
        }
        let plain = try render(photo) { $0.width = 400 }
        XCTAssertNotEqual(try plain.mean(x: 0, y: 0, width: 1, height: 1), try plain.mean(x: 19, y: 19, width: 1, height: 1), "the photo itself varies")
    }

    func testWatermarkIsDrawnWhereAndAsStronglyAsAsked() throws {
        let logo = try temporaryFolder(self) + "/logo.png"
        try GeneratedImage.quadrants(width: 40, height: 40, to: logo)
        let mark = try Data(contentsOf: URL(fileURLWithPath: logo))
        let corner = try render { $0.watermark = RenderSpec.Watermark(image: mark, opacity: 1, placement: .gravity(.southEast)) }
        XCTAssertEqual([corner.width, corner.height], [400, 200])
        XCTAssertEqual(try corner.mean(x: 365, y: 165, width: 10, height: 10), red, accuracy: 1, "the logo's red quarter, at the bottom right")
        XCTAssertEqual(try corner.mean(x: 385, y: 185, width: 10, height: 10), yellow, accuracy: 1)
        XCTAssertEqual(try corner.mean(x: 340, y: 165, width: 10, height: 10), yellow, accuracy: 1, "the photo around it untouched")
        let faint = try render { $0.watermark = RenderSpec.Watermark(image: mark, opacity: 0.5, placement: .gravity(.southEast)) }
        XCTAssertEqual(try faint.mean(x: 365, y: 165, width: 10, height: 10), [255, 127.5, 0], accuracy: 1.5, "half red over yellow")
        let moved = try render { $0.watermark = RenderSpec.Watermark(image: mark, opacity: 1, placement: .gravity(.northWest), offset: RenderSpec.Offset(x: 100, y: 20)) }
        XCTAssertEqual(try moved.mean(x: 125, y: 45, width: 10, height: 10), yellow, accuracy: 1, "the logo's yellow quarter at 100 + 20, 20 + 20")
        XCTAssertEqual(try moved.mean(x: 105, y: 25, width: 10, height: 10), red, accuracy: 1)
        let scaled = try render { $0.watermark = RenderSpec.Watermark(image: mark, opacity: 1, placement: .gravity(.centre), scale: 0.5) }
        XCTAssertEqual(try scaled.mean(x: 110, y: 60, width: 20, height: 20), red, accuracy: 1, "fitted into 200×100: a 100×100 logo in the middle")
        XCTAssertEqual(try scaled.mean(x: 260, y: 120, width: 20, height: 20), yellow, accuracy: 1)
        let tiled = try render { $0.watermark = RenderSpec.Watermark(image: mark, opacity: 1, placement: .replicate, offset: RenderSpec.Offset(x: 20, y: 0)) }
        // Tiles of 60×40 (the logo with 10 px of spacing either side), from the top left.
        for x in [15, 75, 135, 315] {
            XCTAssertEqual(try tiled.mean(x: x, y: 5, width: 5, height: 5), red, accuracy: 1, "tile at \(x)")
        }
        XCTAssertEqual(try tiled.mean(x: 2, y: 5, width: 5, height: 5), red, accuracy: 1, "the spacing shows the photo: its red quadrant")
        XCTAssertEqual(try tiled.mean(x: 292, y: 5, width: 3, height: 5), green, accuracy: 1, "and its green one between tiles")
        XCTAssertEqual(try tiled.mean(x: 255, y: 165, width: 5, height: 5), red, accuracy: 1, "tiles cover the bottom too: the logo's red over yellow")
    }
}

/// Animated GIF and WebP sources: kept animated in WebP, frame by frame through every step, timed
/// as the source was; a still otherwise; frames counted against the pixel limit. Pillow reads them.
final class AnimationTests: XCTestCase {
    private var folder = ""
    private let colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]

    override func setUpWithError() throws {
        folder = try temporaryFolder(self)
        try PillowAnimation.gif(width: 120, height: 80, colours: colours, durations: [100, 200, 300], to: folder + "/three.gif")
    }

    private func render(_ configure: (inout RenderSpec) -> Void) throws -> [PillowAnimation.Frame] {
        var spec = RenderSpec(width: 60, format: .webp)
        configure(&spec)
        let output = try ImageRenderer(spec: spec).render(.file(folder + "/three.gif"), maxPixels: .max)
        let path = folder + "/out-\(UUID().uuidString)"
        try output.data.write(to: URL(fileURLWithPath: path))
        let frames = try PillowAnimation.frames(of: path)
        XCTAssertEqual([output.width, output.height], frames.first?.size, "the frame's size, not the strip's")
        return frames
    }

    func testAnimationsStayAnimatedInWebP() throws {
        let frames = try render { $0.frames = 10 }
        XCTAssertEqual(frames.map(\.size), [[60, 40], [60, 40], [60, 40]])
        XCTAssertEqual(frames.map(\.duration), [100, 200, 300])
        for (frame, colour) in zip(frames, colours) {
            XCTAssertEqual(frame.centre.map(Double.init), colour.map(Double.init), accuracy: 8)
        }
        // Every step runs on each frame: turned, the animation is 40 wide and still three frames.
        let turned = try render { spec in (spec.frames, spec.rotation, spec.width) = (10, 90, 0) }
        XCTAssertEqual(turned.map(\.size), [[80, 120], [80, 120], [80, 120]])
        XCTAssertEqual(try render { $0.frames = 2 }.count, 2, "at most the frames asked")
    }

    func testAStillUnlessWebPWithFramesAndNoBudget() throws {
        XCTAssertEqual(try render { _ in }.count, 1, "one frame by default, as imgproxy's")
        var spec = RenderSpec(width: 60, format: .jpeg)
        spec.frames = 10
        let still = try ImageRenderer(spec: spec).render(.file(folder + "/three.gif"), maxPixels: .max)
        XCTAssertEqual([still.width, still.height], [60, 40])
        let budget = try render { spec in (spec.frames, spec.maxBytes) = (10, 50_000) }
        XCTAssertEqual(budget.count, 1, "a byte budget may shrink pixels, so it makes a still")
    }

    func testFramesCountAgainstThePixelLimit() throws {
        let bomb = Fixture.path("crafted/gif-3000-frames.gif")
        var spec = RenderSpec(width: 64, format: .webp)
        spec.frames = 3000
        XCTAssertThrowsError(try ImageRenderer(spec: spec).render(.file(bomb), maxPixels: 100_000)) { error in
            guard case .tooManyPixels? = error as? ImagePipelineError else { return XCTFail("\(error)") }
        }
        spec.frames = 1
        XCTAssertNoThrow(try ImageRenderer(spec: spec).render(.file(bomb), maxPixels: 100_000), "its first frame is 256 pixels")
    }
}

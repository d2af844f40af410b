import CVips
import TestSupport
import XCTest
@testable import ImagePipeline

/// Step 3 and 4: every output is 8-bit sRGB (or greyscale) and transparency lands on white.
final class ColourTests: XCTestCase {
    /// The embedded profile decides a CMYK photo's colours; libvips' own CMYK profile is only the
    /// fallback. `vips_thumbnail` on 8.14 ignores the embedded one: both files came out identical and
    /// about 9 levels darker than a transform through the file's SWOP profile.
    func testCMYKIsConvertedThroughItsEmbeddedProfile() throws {
        let folder = try temporaryFolder(self)
        let names = ["color/Channel_digital_image_CMYK_color.jpg", "color/Channel_digital_image_CMYK_color_no_profile.jpg"]
        let outputs = try names.map { try readBack(try ImagePreparer().prepare(file: Fixture.path($0)).data, in: folder) }
        let (tagged, untagged) = (outputs[0], outputs[1])
        for output in outputs {
            XCTAssertEqual(output.header.bands, 3)
            XCTAssertEqual(output.header.interpretation, "srgb")
        }
        XCTAssertGreaterThan(largestDifference(try tagged.image.grid(), try untagged.image.grid()), 5, "the profile must matter")
        // Reference: the whole image through libvips' ICC transform with the embedded profile.
        for (name, output) in zip(names, outputs) {
            let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path(name)))
            let whole = try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
                let reference = try VipsImageHandle.make(origin: nil, { .damaged(format: "JPEG", detail: $0) }) { mi_load_buffer(bytes.baseAddress, bytes.count, $0) }
                    .then { mi_icc_to_srgb($0, $1) }.then { mi_cast_uchar($0, $1) }
                return try reference.meanBands(x: 0, y: 0, width: reference.width, height: reference.height)
            }
            let ours = try output.image.mean(x: 0, y: 0, width: output.image.width, height: output.image.height)
            XCTAssertLessThan(zip(whole, ours).map { abs($0 - $1) }.max()!, 1.5, "\(name): \(ours) vs \(whole)")
        }
    }

    /// A CMYK JPEG shrinks on load like any other (our decode, four components, converted once
    /// small): a thumbnail has the colours of the whole image through the same transform, with and
    /// without an embedded profile, and with Photoshop's inverted ink (Pillow writes it that way).
    func testACMYKThumbnailHasTheColoursOfTheWholeTransform() throws {
        let folder = try temporaryFolder(self)
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", """
            import sys
            from PIL import Image
            image = Image.open(sys.argv[1]).convert("CMYK").resize((1800, 1200))
            image.save(sys.argv[2] + "/inverted.jpg", quality=95)
            """, Fixture.path("color/Channel_digital_image_CMYK_color_no_profile.jpg"), folder])
        for path in [Fixture.path("color/Channel_digital_image_CMYK_color.jpg"), folder + "/inverted.jpg"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let whole = try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
                let reference = try VipsImageHandle.make(origin: nil, { .damaged(format: "JPEG", detail: $0) }) { mi_load_buffer(bytes.baseAddress, bytes.count, $0) }
                    .then { mi_icc_to_srgb($0, $1) }.then { mi_cast_uchar($0, $1) }
                return try reference.meanBands(x: 0, y: 0, width: reference.width, height: reference.height)
            }
            let thumbnail = try DecodedImage.decode(.data(data), maxPixels: 100_000_000) { _ in (120, 120) }
            XCTAssertEqual(thumbnail.longEdge, 120)
            XCTAssertEqual(thumbnail.image.bands, 3)
            let ours = try thumbnail.mean(x: 0, y: 0, width: thumbnail.width, height: thumbnail.height)
            // Shrunk in ink, then transformed (the transform is not linear): within 2.5 levels on
            // average (1.7 measured), where a wrong profile was 9 and uninverted ink would be ~100.
            XCTAssertLessThan(zip(whole, ours).map { abs($0 - $1) }.max()!, 2.5, "\(path): \(ours) vs \(whole)")
        }
    }

    func testGreyscaleStaysOneBand() throws {
        let folder = try temporaryFolder(self)
        let output = try readBack(try ImagePreparer().prepare(file: Fixture.path("color/concert.jpg")).data, in: folder)
        XCTAssertEqual(output.header.bands, 1)
        XCTAssertEqual(output.header.interpretation, "b-w")
        XCTAssertEqual([output.image.width, output.image.height], [400, 267])
    }

    func testSixteenBitTIFFBecomesEightBitWithTheSameColours() throws {
        let folder = try temporaryFolder(self)
        let path = Fixture.path("color/tifftag-photoshop.tiff")
        let output = try readBack(try ImagePreparer().prepare(file: path).data, in: folder)
        XCTAssertEqual(output.header.bitsPerSample, 8)
        XCTAssertEqual(output.header.bands, 3)
        let source = try ImageHeader.read(file: path)
        XCTAssertEqual(source.bitsPerSample, 16)
        XCTAssertEqual([output.image.width, output.image.height], [source.width, source.height])
        let mean = try output.image.mean(x: 0, y: 0, width: output.image.width, height: output.image.height)
        XCTAssertTrue(mean.allSatisfy { $0 > 5 && $0 < 250 }, "16-bit values must be scaled, not clipped: \(mean)")
    }

    func testDisplayP3ProfileIsReadAndNotCarriedOver() throws {
        let path = Fixture.path("photos/iphone_13_pro_max.HEIC")
        XCTAssertEqual(try ImageHeader.read(file: path).iccProfile, "Display P3")
        let encoded = try ImagePreparer().prepare(file: path)
        XCTAssertFalse(ContainerMetadata.kinds(in: encoded.data).contains("ICC"))
    }

    /// The flag is 50% transparent everywhere: on white its red stripe is pink, on black dark red.
    func testHalfTransparentFlagIsFlattenedOntoWhite() throws {
        let folder = try temporaryFolder(self)
        let output = try readBack(try ImagePreparer().prepare(file: Fixture.path("alpha/Flag_of_the_Netherlands-alpha.png")).data, in: folder)
        XCTAssertEqual(output.header.bands, 3)
        let redStripe = try output.image.mean(x: 0, y: 0, width: output.image.width, height: output.image.height / 3 - 10)
        XCTAssertGreaterThan(redStripe[0], 200)
        XCTAssertGreaterThan(redStripe[1], 120)
        let whiteStripe = try output.image.mean(x: 0, y: output.image.height / 3 + 10, width: output.image.width, height: output.image.height / 3 - 20)
        XCTAssertTrue(whiteStripe.allSatisfy { $0 > 250 }, "\(whiteStripe)")
    }

    func testFullyTransparentCornersBecomeWhite() throws {
        let folder = try temporaryFolder(self)
        for name in ["alpha/alpha-layer-1-fill.png", "alpha/5_webp_a.webp"] {
            let output = try readBack(try ImagePreparer().prepare(file: Fixture.path(name)).data, in: folder)
            let corner = try output.image.mean(x: 0, y: 0, width: 8, height: 8)
            XCTAssertTrue(corner.allSatisfy { $0 > 250 }, "\(name): \(corner)")
        }
    }

    func testSixteenBitGreyWithAlphaFlattensToEightBitGrey() throws {
        let folder = try temporaryFolder(self)
        let output = try readBack(try ImagePreparer().prepare(file: Fixture.path("alpha/16-bit-grey-alpha.png")).data, in: folder)
        XCTAssertEqual(output.header.bands, 1)
        XCTAssertEqual(output.header.bitsPerSample, 8)
    }

    func testPNGOutputKeepsAlpha() throws {
        var options = PrepareOptions()
        options.format = .png
        let folder = try temporaryFolder(self)
        let encoded = try ImagePreparer(options: options).prepare(file: Fixture.path("alpha/alpha-layer-1-fill.png"))
        XCTAssertEqual(encoded.format, .png)
        XCTAssertEqual(encoded.mimeType, "image/png")
        XCTAssertEqual(encoded.suggestedFilename, "alpha-layer-1-fill.png")
        let output = try readBack(encoded.data, in: folder)
        XCTAssertTrue(output.header.hasAlpha)
        XCTAssertLessThanOrEqual(encoded.byteCount, options.maxBytes)
    }

    func testPNGThatCannotFitFallsBackToJPEGWithAWarning() throws {
        var options = PrepareOptions()
        options.format = .png
        let encoded = try ImagePreparer(options: options).prepare(file: Fixture.path("photos/jolla.jpg"))
        XCTAssertEqual(encoded.format, .jpeg)
        XCTAssertEqual(encoded.suggestedFilename, "jolla.jpg")
        XCTAssertEqual(encoded.warnings.count, 1)
        XCTAssertLessThanOrEqual(encoded.byteCount, options.maxBytes)
    }

    func testFirstFrameOfAnimatedGIF() throws {
        let folder = try temporaryFolder(self)
        let path = Fixture.path("generated/animated.gif")
        XCTAssertEqual(try ImageHeader.read(file: path).pages, 2)
        let output = try readBack(try ImagePreparer().prepare(file: path).data, in: folder)
        XCTAssertEqual([output.image.width, output.image.height], [320, 180])
        // Frame 2 is frame 1 mirrored: the first frame's left third must match flowers' left third.
        let flowers = try readBack(try ImagePreparer(options: { var o = PrepareOptions(); o.maxEdge = 320; return o }())
            .prepare(file: Fixture.path("photos/flowers.jpeg")).data, in: folder)
        XCTAssertLessThan(largestDifference(try output.image.grid(), try flowers.image.grid()), 15)
    }
}

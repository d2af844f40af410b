import CVips
import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// The single-output renderer the thumbnail service and folder thumbnails share, decoding from bytes,
/// and the postconditions each public entry point keeps on its own.
final class RendererTests: XCTestCase {
    /// DSCN0010.jpg is 640×480.
    private let photo = Fixture.path("photos/DSCN0010.jpg")

    private func render(_ spec: RenderSpec, _ path: String? = nil) throws -> (EncodedImage, DecodedImage) {
        let encoded = try ImageRenderer(spec: spec).render(.file(path ?? photo), maxPixels: .max)
        let folder = try temporaryFolder(self)
        // JPEG XL is no source format: libjxl's own decoder reads it back.
        return (encoded, try readBack(encoded.format == .jxl ? try Djxl.png(from: encoded.data, in: folder) : encoded.data, in: folder).image)
    }

    func testEachResizingTypeGivesTheSizeItPromises() throws {
        let cases: [(RenderSpec, [Int])] = [
            (RenderSpec(width: 320, height: 320, resizing: .fit), [320, 240]),
            (RenderSpec(width: 0, height: 120, resizing: .fit), [160, 120]),
            (RenderSpec(width: 200, height: 200, resizing: .fill), [200, 200]),
            (RenderSpec(width: 300, height: 100, resizing: .fill, gravity: .north), [300, 100]),
            (RenderSpec(width: 100, height: 300, resizing: .fill, gravity: .east), [100, 300]),
            // Without enlarge, a fill of a box larger than the photo is what of the box it can fill.
            (RenderSpec(width: 1000, height: 1000, resizing: .fill), [640, 480]),
            (RenderSpec(width: 1000, height: 1000, resizing: .fillDown), [480, 480]),
            (RenderSpec(width: 1000, height: 1000, resizing: .fill, enlarge: true), [1000, 1000]),
            (RenderSpec(width: 200, height: 50, resizing: .force), [200, 50]),
            (RenderSpec(width: 300, height: 100, resizing: .auto), [300, 100]),
            (RenderSpec(width: 100, height: 300, resizing: .auto), [100, 75]),
            (RenderSpec(width: 1200, height: 0, resizing: .fit), [640, 480]),
            (RenderSpec(width: 1280, height: 0, resizing: .fit, enlarge: true), [1280, 960]),
        ]
        for (spec, expected) in cases {
            let (encoded, image) = try render(spec)
            XCTAssertEqual([image.width, image.height], expected, "\(spec.resizing) \(spec.width)×\(spec.height)")
            XCTAssertEqual([encoded.width, encoded.height], expected)
        }
    }

    /// The draft decode (`serve --fast-decode`) keeps what the normal one promises: the same output
    /// size for every shape, resizing type and EXIF orientation, the same picture (3×3 colour grid
    /// within a few levels), and a truncated JPEG reported as damaged, not decoded as grey.
    func testTheDraftDecodeKeepsSizesOrientationAndDamage() throws {
        let folder = try temporaryFolder(self)
        let wide = folder + "/wide.jpg"
        // 2048×878: a quarter scale is 512×219, one row short of a 512 px fit; the draft must not use it.
        try ImageEncoder.encode(try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (640, 480) }
            .fitting(box: (2048, 878), crop: VIPS_INTERESTING_CENTRE, enlarge: true), as: .jpeg, quality: 90, settings: EncoderSettings(progressive: false))
            .write(to: URL(fileURLWithPath: wide))
        let specs = [RenderSpec(width: 512, height: 512, resizing: .fit), RenderSpec(width: 160, height: 160, resizing: .fill),
                     RenderSpec(width: 100, height: 0, resizing: .fit), RenderSpec(width: 75, height: 40, resizing: .force)]
        for path in [photo, wide] + Fixture.orientations {
            for spec in specs {
                let normal = try ImageRenderer(spec: spec).render(.file(path), maxPixels: .max)
                let draft = try ImageRenderer(spec: spec).render(.file(path), maxPixels: .max, draft: true)
                XCTAssertEqual([draft.width, draft.height], [normal.width, normal.height], "\(path) \(spec.resizing)")
                let difference = largestDifference(try readBack(normal.data, in: folder).image.grid(), try readBack(draft.data, in: folder).image.grid())
                XCTAssertLessThan(difference, 8, "\(path) \(spec.resizing): the same picture, upright")
            }
        }
        let jolla = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg")))
        try jolla.prefix(jolla.count / 2).write(to: URL(fileURLWithPath: folder + "/truncated.jpg"))
        XCTAssertThrowsError(try ImageRenderer(spec: specs[0]).render(.file(folder + "/truncated.jpg"), maxPixels: .max, draft: true)) { error in
            guard case ImagePipelineError.damaged = error else { return XCTFail("\(error)") }
        }
    }

    /// A fill cut at the west edge shows the photo's left side; at the east, its right side.
    func testGravityPicksTheEdgeThatIsKept() throws {
        let (_, west) = try render(RenderSpec(width: 100, height: 100, resizing: .fill, gravity: .west))
        let (_, east) = try render(RenderSpec(width: 100, height: 100, resizing: .fill, gravity: .east))
        let whole = try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (10_000, 100) } // 133×100
        XCTAssertEqual(whole.width, 133)
        let left = try whole.mean(x: 0, y: 0, width: 100, height: 100)
        let right = try whole.mean(x: 33, y: 0, width: 100, height: 100)
        let westMean = try west.mean(x: 0, y: 0, width: 100, height: 100)
        let eastMean = try east.mean(x: 0, y: 0, width: 100, height: 100)
        XCTAssertLessThan(zip(westMean, left).map { abs($0 - $1) }.max()!, 2, "west keeps the left")
        XCTAssertLessThan(zip(eastMean, right).map { abs($0 - $1) }.max()!, 2, "east keeps the right")
        XCTAssertGreaterThan(zip(westMean, eastMean).map { abs($0 - $1) }.max()!, 2, "the two crops differ")
    }

    func testByteBudgetHoldsInEveryFormat() throws {
        for format in OutputFormat.allCases {
            for budget in [3_000, 12_000, 40_000] {
                let spec = RenderSpec(width: 400, height: 400, format: format, quality: 90, maxBytes: budget)
                let (encoded, image) = try render(spec, Fixture.path("photos/jolla.jpg"))
                XCTAssertLessThanOrEqual(encoded.byteCount, budget, "\(format) at \(budget)")
                XCTAssertEqual(encoded.format, format)
                XCTAssertEqual(image.width, encoded.width)
            }
        }
    }

    func testDecodingBytesGivesTheSamePixelsAsTheFile() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/iphone_13_pro_max.HEIC")))
        let fromBytes = try DecodedImage.decode(.data(data), maxPixels: .max) { _ in (300, 300) }
        let fromFile = try DecodedImage.decode(file: Fixture.path("photos/iphone_13_pro_max.HEIC"), maxPixels: .max) { _ in (300, 300) }
        XCTAssertEqual([fromBytes.width, fromBytes.height], [fromFile.width, fromFile.height])
        XCTAssertLessThan(largestDifference(try fromBytes.grid(), try fromFile.grid()), 0.01)
        let header = try ImageHeader.read(.data(data))
        XCTAssertEqual(header.loader, "heifload")
        XCTAssertEqual(header, try ImageHeader.read(file: Fixture.path("photos/iphone_13_pro_max.HEIC")))
    }

    /// The buffer loaders ignore `fail_on` unless told through the option string; truncated bytes
    /// must fail as damage, never come back half grey.
    func testTruncatedBytesFailInsteadOfTurningGrey() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg")))
        XCTAssertThrowsError(try DecodedImage.decode(.data(data.prefix(data.count / 2)), maxPixels: .max) { _ in (500, 500) }) { error in
            guard case .damaged(format: "JPEG", _)? = error as? ImagePipelineError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ImageHeader.read(.data(Data("not an image at all".utf8)))) { error in
            XCTAssertEqual(error as? ImagePipelineError, .unsupportedFormat)
        }
        XCTAssertThrowsError(try ImageHeader.read(.data(Data()))) { error in
            XCTAssertEqual(error as? ImagePipelineError, .emptySource)
        }
    }

    /// Found by the fuzzer under AddressSanitizer: a buffer decode kept an EXIF blob that pointed at
    /// freed memory, and the WebP encoder read it. Decoded images carry no blobs at all now.
    func testDecodedImagesKeepNoMetadataThatPointsIntoTheirSource() throws {
        let sources = ["fuzz/avif-exif-blob-freed-before-webpsave.avif", "metadata/everything.jpg", "metadata/everything.webp",
                       "photos/iphone_13_pro_max.HEIC"].map(Fixture.path)
        for path in sources {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for source in [ImageSource.data(data), .file(path)] {
                let decoded = try DecodedImage.decode(source, maxPixels: .max) { _ in (64, 64) }
                let blobs = decoded.image.fieldNames.filter { vips_image_get_typeof(decoded.image.pointer, $0) == vips_blob_get_type() }
                XCTAssertEqual(blobs, [], "\((path as NSString).lastPathComponent)")
                for format in OutputFormat.allCases {
                    let encoded = try ImageRenderer(spec: RenderSpec(width: 32, height: 32, format: format)).render(decoded)
                    XCTAssertEqual(ContainerMetadata.kinds(in: encoded.data), [], "\(format)")
                }
            }
        }
    }

    /// `encode` used to return a decode made for something bigger at full size.
    func testPreparerFitsAnyDecodedImageIntoMaxEdge() throws {
        var options = PrepareOptions()
        options.maxEdge = 300
        let preparer = try ImagePreparer(options: options)
        let big = try DecodedImage.decode(file: Fixture.path("photos/jolla.jpg"), maxPixels: .max) { _ in (1200, 1200) }
        XCTAssertEqual(big.longEdge, 1200)
        let encoded = try preparer.encode(big, stem: "jolla")
        XCTAssertEqual(max(encoded.width, encoded.height), 300)
        XCTAssertEqual(encoded.suggestedFilename, "jolla.jpg")
    }

    /// A thumbnail's extension comes from the bytes it holds.
    func testPNGThumbnailsArePNGFilesNamedPNG() throws {
        let folder = try temporaryFolder(self)
        var thumbnails = ThumbnailOptions()
        thumbnails.format = .png
        thumbnails.variants = [ThumbnailVariant(name: "list", points: 40)]
        let job = FolderJob(inputs: [Fixture.path("alpha/alpha-layer-1-fill.png")], outputFolder: folder, prepare: nil, thumbnails: thumbnails)
        let report = try FolderProcessor(job: job).run()
        let made = report.thumbnailsWritten.flatMap(\.thumbnails)
        XCTAssertEqual(made.count, 2)
        for thumbnail in made {
            XCTAssertTrue(thumbnail.path.hasSuffix(".png"), thumbnail.path)
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + thumbnail.path))
            XCTAssertEqual(Array(data.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(thumbnail.path) holds PNG bytes")
            XCTAssertEqual(ContainerMetadata.kinds(in: data), [])
        }
    }

    /// One decode per photo, however many outputs: the upload image and four thumbnails.
    func testEveryOutputOfAPhotoComesFromOneDecode() throws {
        let folder = try temporaryFolder(self)
        let photos = ["photos/DSCN0010.jpg", "photos/iphone_13_pro_max.HEIC", "alpha/5_webp_a.webp"].map(Fixture.path)
        var job = FolderJob(inputs: photos, outputFolder: folder, prepare: PrepareOptions(), thumbnails: ThumbnailOptions())
        job.jobs = 1
        let before = DecodedImage.counter.current
        let report = try FolderProcessor(job: job).run()
        XCTAssertEqual(report.written.count, 3)
        XCTAssertEqual(report.thumbnailsWritten.flatMap(\.thumbnails).count, 12)
        XCTAssertEqual(DecodedImage.counter.current - before, 3)
    }
}

import CVips
import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// RGB and greyscale JPEGs decode through their own path (libjpeg's DCT scaling by M/8, then the
/// vectorised Lanczos3 of reduce.h). libvips' `vips_thumbnail`, which they all went through before,
/// is the judge: the same sizes, the same picture, for every shape, box, orientation and profile.
final class JPEGDecodeTests: XCTestCase {
    private let photo = Fixture.path("photos/jolla.jpg")

    /// A JPEG of the given size made from a real photo (stretched), so it has real detail.
    private func jpeg(_ width: Int, _ height: Int, in folder: String, grey: Bool = false) throws -> String {
        let path = folder + "/\(width)x\(height)\(grey ? "-grey" : "").jpg"
        var image = try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (2048, 2048) }
            .fitting(box: (width, height), crop: VIPS_INTERESTING_CENTRE, enlarge: true)
        if grey {
            image = DecodedImage(image: try image.image.then { mi_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }.materialized(), source: image.source)
        }
        try ImageEncoder.encode(image, as: .jpeg, quality: 90, settings: EncoderSettings(progressive: false)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A JPEG of one grey level (128) at `width`×`height`: cheap to make at any size.
    private func greyJPEG(_ width: Int, _ height: Int, in folder: String) throws -> String {
        let path = folder + "/\(width)x\(height)-flat.jpg"
        let bytes = [UInt8](repeating: 128, count: width * height * 3)
        let memory = try XCTUnwrap(bytes.withUnsafeBytes { vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR) })
        let grey = DecodedImage(image: VipsImageHandle(taking: memory, origin: nil), source: try ImageHeader.read(file: photo))
        try ImageEncoder.encode(grey, as: .jpeg, quality: 95, settings: EncoderSettings(progressive: false)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What every JPEG took before: `vips_thumbnail` into the box, upright, profile to sRGB.
    private func libvipsThumbnail(_ path: String, box: (Int, Int)) throws -> DecodedImage {
        let header = try ImageHeader.read(file: path)
        let profile: String? = header.isCMYKOrProfiled ? "srgb" : nil
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let image = try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
            try VipsImageHandle.make(origin: nil, { .damaged(format: "JPEG", detail: $0) }) { out in
                mi_thumbnail_buffer(bytes.baseAddress, bytes.count, out, Int32(box.0), Int32(box.1), profile, 1)
            }.normalisedTo8BitDisplay().materialized()
        }
        return DecodedImage(image: image, source: header)
    }

    private func pixels(_ image: DecodedImage) -> [UInt8] {
        var length = 0
        guard let memory = vips_image_write_to_memory(image.image.pointer, &length) else { return [] }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: length))
    }

    func testTheDCTScaleLeavesTwiceTheOutputForTheLanczosPass() throws {
        let folder = try temporaryFolder(self)
        // (width, height) → DCT scale (of 8) for a 512 box: the smallest still at least twice the fit.
        let cases: [((Int, Int), Int)] = [((2048, 1672), 4), ((2048, 878), 4), ((1940, 1584), 8), ((4032, 3024), 4),
                                          ((4096, 3072), 2), ((600, 400), 8), ((16, 4000), 4)]
        // Only the header counts: the JPEGs are flat.
        for ((width, height), scale) in cases {
            let header = try ImageHeader.read(file: try greyJPEG(width, height, in: folder))
            let fit = JPEGFit(header: header, box: (512, 512), headroom: 2)
            XCTAssertEqual(fit.scale, scale, "\(width)×\(height)")
            XCTAssertEqual(JPEGFit(header: header, box: (512, 512), headroom: 1).scale <= scale, true, "the draft decodes no larger")
        }
        // Orientation 6 stores the photo turned: the box applies to the upright picture.
        let turned = try ImageHeader.read(file: Fixture.path("orientation/Landscape_6.jpg"))
        let fit = JPEGFit(header: turned, box: (300, 10_000), headroom: 2)
        XCTAssertEqual([fit.width, fit.height].max(), fit.height, "stored portrait, shown landscape 300 wide")
        XCTAssertEqual(fit.height, 300)
    }

    /// Corpus photos, generated shapes (slivers one pixel across, odd sizes, greyscale), every EXIF
    /// orientation and a profiled JPEG, into small, medium, large and one-sided boxes: the same size
    /// as `vips_thumbnail` gives, and at least as close to the ideal (the full decode resized with
    /// Lanczos3) as it is. The two differ where libvips' DCT scale does (it only has 1/2, 1/4, 1/8).
    func testAtLeastAsCloseToTheFullDecodeAsLibvipsThumbnail() throws {
        let folder = try temporaryFolder(self)
        let generated = try [(1, 700, false), (700, 1, false), (9, 9, false), (1001, 333, false), (640, 480, true)]
            .map { try jpeg($0.0, $0.1, in: folder, grey: $0.2) }
        let sources = ["photos/jolla.jpg", "photos/DSCN0010.jpg", "photos/2569067123_aca715a2ee_o.jpg", "color/concert.jpg"]
            .map(Fixture.path) + Fixture.orientations + generated
        for path in sources {
            let full = try DecodedImage.decode(file: path, maxPixels: .max) { _ in (DecodedImage.unbounded, DecodedImage.unbounded) }
            for box in [(512, 512), (160, 160), (2048, 2048), (100, 100_000), (7, 7)] {
                let ours = try DecodedImage.decode(file: path, maxPixels: .max) { _ in box }
                let theirs = try libvipsThumbnail(path, box: box)
                let ideal = try full.fitting(box: box, crop: VIPS_INTERESTING_NONE)
                let name = "\((path as NSString).lastPathComponent) into \(box)"
                XCTAssertEqual([ours.width, ours.height, ours.image.bands], [theirs.width, theirs.height, theirs.image.bands], name)
                XCTAssertEqual([ours.width, ours.height], [ideal.width, ideal.height], name)
                // Within a level of libvips' distance from the ideal (itself made by libvips' resize,
                // which for large ratios box-filters first where this path runs Lanczos3 throughout).
                // Outputs of a few pixels average too few to say more than their size and grid.
                let (error, before) = (meanDifference(ours, ideal), meanDifference(theirs, ideal))
                if ours.width >= 16, ours.height >= 16 {
                    XCTAssertLessThanOrEqual(error, before + 1, "\(name): \(error) levels from the ideal, libvips \(before)")
                }
                if ours.width >= 16, ours.height >= 16 {
                    XCTAssertLessThan(largestDifference(try ours.grid(), try ideal.grid()), 3, "\(name): the same picture, upright")
                }
            }
        }
    }

    private func meanDifference(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        let (x, y) = (pixels(a), pixels(b))
        guard x.count == y.count, !x.isEmpty else { return .infinity }
        // A plain loop over the buffers: the suite runs unoptimised, where a map over 9 million
        // pixels took seconds.
        var total = 0
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                for index in 0..<xs.count { total &+= abs(Int(xs[index]) - Int(ys[index])) }
            }
        }
        return Double(total) / Double(x.count)
    }

    /// A flat picture stays flat through the shrink (the weights of every output sum exactly to one),
    /// and bytes in memory decode as the file does.
    func testFlatStaysFlatAndBytesDecodeAsTheFileDoes() throws {
        let folder = try temporaryFolder(self)
        let path = try greyJPEG(1500, 1000, in: folder)
        let decoded = try DecodedImage.decode(file: path, maxPixels: .max) { _ in (100, 100) }
        XCTAssertEqual(Set(pixels(decoded)), [128])
        let fromFile = try DecodedImage.decode(file: photo, maxPixels: .max) { _ in (300, 300) }
        let fromBytes = try DecodedImage.decode(.data(try Data(contentsOf: URL(fileURLWithPath: photo))), maxPixels: .max) { _ in (300, 300) }
        XCTAssertEqual(pixels(fromFile), pixels(fromBytes))
    }

}

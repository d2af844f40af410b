import CVips
import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// JPEG outputs come from our own writer (`CKernels/jpeg_encode.c`); libvips' jpegsave, which wrote
/// them before, is the judge: the same decoded pixels (quantisation tables, chroma sampling) in colour,
/// 4:4:4 and grey, progressive in nine scans of spectral selection where libjpeg's own progression has
/// ten, and no more bytes.
final class JPEGWriterTests: XCTestCase {
    func testOurWriterDecodesAsLibvipsJpegsaveInNineScans() throws {
        var ours = 0, theirs = 0
        for (fixture, fullChroma) in [("photos/jolla.jpg", false), ("photos/DSCN0010.jpg", true), ("photos/flowers.jpeg", false), ("color/concert.jpg", false)] {
            let image = try DecodedImage.decode(file: Fixture.path(fixture), maxPixels: .max) { _ in (512, 512) }
            let written = try ImageEncoder.encode(image, as: .jpeg, quality: 80, settings: EncoderSettings(), fullChroma: fullChroma)
            let reference = try image.pixels(for: .jpeg).save(failure: { .processingFailed(detail: $0) }) {
                mi_jpegsave_buffer($0, $1, $2, 80, 1, fullChroma ? 1 : 0)
            }
            XCTAssertEqual(try pixels(written), try pixels(reference), fixture)
            XCTAssertEqual(scans(written), image.image.bands == 1 ? 5 : 9, fixture)
            (ours, theirs) = (ours + written.count, theirs + reference.count)
        }
        XCTAssertLessThanOrEqual(ours, theirs, "bytes summed")
    }

    private func pixels(_ jpeg: Data) throws -> [UInt8] {
        let image = try DecodedImage.readingBack(jpeg)
        var length = 0
        guard let memory = vips_image_write_to_memory(image.image.pointer, &length) else { return [] }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: length))
    }

    /// Start-of-scan markers: entropy-coded bytes never hold 0xFF 0xDA (an 0xFF there is followed by 0).
    private func scans(_ jpeg: Data) -> Int {
        zip(jpeg, jpeg.dropFirst()).filter { $0 == 0xFF && $1 == 0xDA }.count
    }
}

import TestSupport
import XCTest
@testable import ImagePipeline

/// Bad inputs fail with a clear, specific error, before any large allocation where possible.
final class HostileInputTests: XCTestCase {
    private func error(preparing name: String, _ options: PrepareOptions = PrepareOptions()) -> ImagePipelineError? {
        do {
            _ = try ImagePreparer(options: options).prepare(file: Fixture.path(name))
            return nil
        } catch {
            return error
        }
    }

    func testEmptyFile() {
        XCTAssertEqual(error(preparing: "hostile/empty.jpg"), .emptySource)
    }

    func testTextNamedJPEG() {
        XCTAssertEqual(error(preparing: "hostile/not-an-image.jpg"), .unsupportedFormat)
    }

    func testDamagedHeader() {
        guard case .damaged(format: "JPEG", _)? = error(preparing: "hostile/corrupt-header.jpg") else { return XCTFail() }
    }

    /// libvips' default would fill the missing part with grey and call it a success.
    func testTruncatedJPEGFailsInsteadOfTurningGrey() {
        guard case .damaged(format: "JPEG", let detail)? = error(preparing: "hostile/corrupted.jpg") else { return XCTFail() }
        XCTAssertFalse(detail.isEmpty)
    }

    func testDecompressionBombIsRefusedFromItsHeader() {
        XCTAssertEqual(error(preparing: "hostile/65536-uint32-limit.png"),
                       .tooManyPixels(width: 65536, height: 65536, limit: PrepareOptions().maxPixels))
    }

    func testGiantImageIsRefusedByDefaultAndProcessedWhenAllowed() throws {
        XCTAssertEqual(error(preparing: "hostile/giant-image.jpg"),
                       .tooManyPixels(width: 20000, height: 14000, limit: PrepareOptions().maxPixels))
        var options = PrepareOptions()
        options.maxPixels = 300_000_000
        let encoded = try ImagePreparer(options: options).prepare(file: Fixture.path("hostile/giant-image.jpg"))
        XCTAssertEqual([encoded.width, encoded.height], [2048, 1434])
        XCTAssertLessThanOrEqual(encoded.byteCount, options.maxBytes)
    }

    func testMissingFileAndFolder() throws {
        XCTAssertEqual(error(preparing: "does-not-exist.jpg"), .sourceUnreadable(errno: ENOENT))
        XCTAssertEqual(error(preparing: "photos"), .sourceUnreadable(errno: nil))
    }
}

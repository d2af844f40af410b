import XCTest
@testable import ImagePipeline

/// Bad inputs fail with a clear, specific error, before any large allocation where possible.
final class HostileInputTests: XCTestCase {
    private func error(preparing name: String, _ options: PrepareOptions = PrepareOptions()) -> ImagePipelineError? {
        do {
            _ = try ImagePreparer(options: options).prepare(file: Fixture.path(name))
            return nil
        } catch {
            return error as? ImagePipelineError
        }
    }

    func testEmptyFile() {
        XCTAssertEqual(error(preparing: "hostile/empty.jpg"), .emptyFile)
    }

    func testTextNamedJPEG() {
        guard case .notAnImage? = error(preparing: "hostile/not-an-image.jpg") else { return XCTFail() }
    }

    func testDamagedHeader() {
        guard case .decodeFailed? = error(preparing: "hostile/corrupt-header.jpg") else { return XCTFail() }
    }

    /// libvips' default would fill the missing part with grey and call it a success.
    func testTruncatedJPEGFailsInsteadOfTurningGrey() {
        guard case .decodeFailed(let detail)? = error(preparing: "hostile/corrupted.jpg") else { return XCTFail() }
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
        guard case .fileUnreadable? = error(preparing: "does-not-exist.jpg") else { return XCTFail() }
        guard case .fileUnreadable(let reason)? = error(preparing: "photos") else { return XCTFail() }
        XCTAssertEqual(reason, "not a regular file")
    }

    func testErrorMessagesTellTheUserWhatToDo() {
        XCTAssertTrue(ImagePipelineError.tooManyPixels(width: 2, height: 2, limit: 1).description.contains("--max-pixels"))
        XCTAssertTrue(ImagePipelineError.emptyFile.description.contains("copy the photo again"))
    }
}

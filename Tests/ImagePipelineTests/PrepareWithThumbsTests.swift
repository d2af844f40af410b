import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Upload images with thumbnails from the same decode, as `prepare --thumbs` makes them.
final class PrepareWithThumbsTests: FolderTestCase {
    private func prepareWithThumbs(_ inputs: [String], _ prepare: PrepareOptions = PrepareOptions(),
                                   _ thumbnails: ThumbnailOptions = ThumbnailOptions()) throws -> FolderReport {
        var job = FolderJob(inputs: inputs, outputFolder: output, prepare: prepare, thumbnails: thumbnails)
        job.thumbnailSubfolder = FolderJob.thumbnailsBesideUploads
        let report = try FolderProcessor(job: job).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        return report
    }

    /// Thumbnails are kept apart, so the product folders of upload images can be registered as they are.
    func testPrepareWithThumbsLeavesProductFoldersUploadable() throws {
        for name in ["1", "2"] { try copy("photos/DSCN0010.jpg", to: "sku/IMG_\(name).jpg") }
        _ = try prepareWithThumbs([input])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output + "/sku").sorted(), ["IMG_1.jpg", "IMG_2.jpg"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output + "/thumbnails/sku").count, 8)
        XCTAssertNotNil(ThumbnailIndex.load(from: output + "/thumbnails"))
        // The output folder as input: the thumbnails folder is not a product.
        let scan = ProductScanner().scan([output])
        XCTAssertEqual(scan.products.map(\.name), ["sku"])
        XCTAssertEqual(scan.warnings, [])
        XCTAssertEqual(try prepareWithThumbs([input]).thumbnailsUpToDate, 2)
    }

    /// A raised pixel limit governs the thumbnails made from the same decode too: a 280 MP photo it
    /// allows used to be refused by the thumbnails' default.
    func testPrepareWithThumbsHonoursMaxPixels() throws {
        var prepare = PrepareOptions(), thumbnails = ThumbnailOptions()
        prepare.maxPixels = 300_000_000
        thumbnails.maxPixels = 300_000_000
        thumbnails.variants = [ThumbnailVariant(name: "list", points: 40), ThumbnailVariant(name: "grid", points: 60)]
        let report = try prepareWithThumbs([Fixture.path("hostile/giant-image.jpg")], prepare, thumbnails)
        XCTAssertEqual(report.written.first.map { [$0.width, $0.height] }, [2048, 1434])
        XCTAssertEqual(report.thumbnailsWritten.first?.thumbnails.count, 4)
    }
}

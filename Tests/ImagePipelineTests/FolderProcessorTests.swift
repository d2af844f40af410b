import TestSupport
import XCTest
@testable import ImagePipeline

/// Folders: products, names, the manifest, incremental reruns and never losing work.
final class FolderProcessorTests: FolderTestCase {
    private func prepareFolder(_ inputs: [String]? = nil, options: PrepareOptions = PrepareOptions(), force: Bool = false) throws -> FolderReport {
        var job = FolderJob(inputs: inputs ?? [input], outputFolder: output, prepare: options)
        job.jobs = 2
        job.force = force
        job.photosPerProductLimit = 5
        return try FolderProcessor(job: job).run()
    }

    private func modificationDates() throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) where path.hasSuffix(".jpg") {
            dates[path] = try FileManager.default.attributesOfItem(atPath: output + "/" + path)[.modificationDate] as? Date
        }
        return dates
    }

    /// With several workers the slowest photos start first, so none is left running alone at the end
    /// of a run: a HEIC before a JPEG of up to four times its bytes (it decodes its whole grid), then
    /// by size; ties keep the folder's order.
    func testSeveralWorkersStartTheSlowestPhotosFirst() throws {
        try copy("photos/DSCN0010.jpg", to: "a-small.jpg")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try Data(count: 3_000_000).write(to: URL(fileURLWithPath: input + "/b-large.jpg"))
        try copy("photos/iphone_13_pro_max.HEIC", to: "c-phone.HEIC")
        try copy("photos/DSCN0010.jpg", to: "d-small.jpg")
        let photos = ["a-small.jpg", "b-large.jpg", "c-phone.HEIC", "d-small.jpg"].map { SourcePhoto(path: input + "/" + $0, product: "", outputStem: $0) }
        XCTAssertEqual(PhotoCost.slowestFirst([0, 1, 2, 3], of: photos), [2, 1, 0, 3])
        XCTAssertEqual(PhotoCost.slowestFirst([3, 0], of: photos), [3, 0], "ties keep their order")
    }

    func testFolderOfSubfoldersIsOneProductEachInNaturalOrder() throws {
        try copy("orientation/Landscape_1.jpg", to: "sku-123/IMG_10.jpg")
        try copy("orientation/Landscape_2.jpg", to: "sku-123/IMG_2.jpg")
        try copy("photos/iphone_13_pro_max.HEIC", to: "sku-123/IMG_1.HEIC")
        try copy("photos/DSCN0010.jpg", to: "sku-9/photo.jpeg")
        try "{}".write(toFile: input + "/sku-9/product.json", atomically: true, encoding: .utf8)

        let scan = ProductScanner().scan([input])
        XCTAssertEqual(scan.products.map(\.name), ["sku-9", "sku-123"])
        XCTAssertEqual(scan.products[1].photos.map(\.outputStem), ["IMG_1", "IMG_2", "IMG_10"])

        let report = try prepareFolder()
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.written.map(\.output), ["sku-9/photo.jpg", "sku-123/IMG_1.jpg", "sku-123/IMG_2.jpg", "sku-123/IMG_10.jpg"])
        for entry in report.written {
            let data = try Data(contentsOf: URL(fileURLWithPath: output + "/" + entry.output))
            XCTAssertEqual(data.count, entry.bytes)
            XCTAssertLessThanOrEqual(data.count, 300_000)
        }
    }

    func testFolderWithPhotosDirectlyInsideIsOneProductNamedAfterIt() throws {
        try copy("photos/flowers.jpeg", to: "flowers.jpeg")
        let report = try prepareFolder()
        XCTAssertEqual(report.written.map(\.output), ["in/flowers.jpg"])
    }

    func testLoosePhotosGoStraightIntoTheOutputFolder() throws {
        let report = try prepareFolder([Fixture.path("photos/flowers.jpeg"), Fixture.path("orientation/Landscape_3.jpg")])
        XCTAssertEqual(Set(report.written.map(\.output)), ["flowers.jpg", "Landscape_3.jpg"])
    }

    func testCollidingStemsGetDistinctDeterministicNames() throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "p/a.HEIC")
        try copy("photos/flowers.jpeg", to: "p/a.jpg")
        try copy("alpha/Flag_of_the_Netherlands-alpha.png", to: "p/A.png")
        let names = ProductScanner().scan([input]).photos.map(\.outputStem)
        XCTAssertEqual(names, ["a", "a-jpg", "A-png"])
        let report = try prepareFolder()
        XCTAssertEqual(Set(report.written.map(\.output)), ["p/a.jpg", "p/a-jpg.jpg", "p/A-png.jpg"])
        XCTAssertEqual(report.written.first { $0.output == "p/a.jpg" }?.source, input + "/p/a.HEIC")
    }

    func testUnsafeNamesCannotEscapeTheOutputFolder() {
        XCTAssertEqual(ProductScanner.safeName(".."), "_.")
        XCTAssertEqual(ProductScanner.safeName(".hidden"), "_hidden")
        XCTAssertEqual(ProductScanner.safeName("a/b\\c"), "a_b_c")
        XCTAssertEqual(ProductScanner.safeName("line\nbreak"), "line_break")
    }

    func testOneBadPhotoIsReportedByNameAndTheRestAreProcessed() throws {
        try copy("photos/flowers.jpeg", to: "sku/1.jpg")
        try copy("hostile/corrupted.jpg", to: "sku/2.jpg")
        try copy("hostile/not-an-image.jpg", to: "sku/3.jpg")
        try copy("orientation/Landscape_4.jpg", to: "sku/4.jpg")
        let report = try prepareFolder()
        XCTAssertFalse(report.succeeded)
        XCTAssertEqual(report.written.map(\.output), ["sku/1.jpg", "sku/4.jpg"])
        XCTAssertEqual(report.failed.map { ($0.source as NSString).lastPathComponent }, ["2.jpg", "3.jpg"])
        XCTAssertTrue(report.failed[0].error.contains("truncated"))
        let manifest = try XCTUnwrap(Manifest.load(from: output))
        XCTAssertEqual(manifest.failures.count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/sku/2.jpg"))
    }

    func testMissingInputIsReportedAndOthersStillRun() throws {
        try copy("photos/flowers.jpeg", to: "sku/1.jpg")
        let report = try prepareFolder([input, root + "/nope"])
        XCTAssertEqual(report.written.count, 1)
        XCTAssertEqual(report.failed.map(\.source), [root + "/nope"])
    }

    func testManifestRecordsEveryOutput() throws {
        try copy("photos/jolla.jpg", to: "sku/jolla.jpg")
        _ = try prepareFolder()
        let manifest = try XCTUnwrap(Manifest.load(from: output))
        let entry = try XCTUnwrap(manifest.outputs.first)
        XCTAssertEqual(entry.source, input + "/sku/jolla.jpg")
        XCTAssertEqual(entry.output, "sku/jolla.jpg")
        XCTAssertEqual([entry.width, entry.height], [2048, 1536])
        XCTAssertEqual(entry.settingsFingerprint, PrepareOptions().fingerprint)
        XCTAssertEqual(entry.sourceFingerprint, SourceFingerprint.of(input + "/sku/jolla.jpg"))
        XCTAssertNotNil(entry.quality)
        XCTAssertGreaterThanOrEqual(entry.encodes, 1)
        XCTAssertEqual(manifest.settings, PrepareOptions())
    }

    func testRerunSkipsUnchangedAndRedoesOnlyWhatChanged() throws {
        for n in 1...4 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        XCTAssertEqual(try prepareFolder().written.count, 4)
        let before = try modificationDates()

        let second = try prepareFolder()
        XCTAssertEqual(second.written.count, 0)
        XCTAssertEqual(second.upToDate.count, 4)
        XCTAssertEqual(try modificationDates(), before, "a rerun must not rewrite anything")

        // A replaced source is redone, and only it.
        try FileManager.default.removeItem(atPath: input + "/sku/2.jpg")
        try copy("orientation/Landscape_5.jpg", to: "sku/2.jpg")
        let third = try prepareFolder()
        XCTAssertEqual(third.written.map(\.output), ["sku/2.jpg"])
        XCTAssertEqual(third.upToDate.count, 3)

        // A deleted output is redone.
        try FileManager.default.removeItem(atPath: output + "/sku/3.jpg")
        XCTAssertEqual(try prepareFolder().written.map(\.output), ["sku/3.jpg"])

        // New settings redo everything; so does --force.
        var options = PrepareOptions()
        options.maxEdge = 500
        XCTAssertEqual(try prepareFolder(options: options).written.count, 4)
        XCTAssertEqual(try prepareFolder(options: options, force: true).written.count, 4)
    }

    func testInputsAreNeverModified() throws {
        try copy("photos/DSCN0010.jpg", to: "sku/gps.jpg")
        let path = input + "/sku/gps.jpg"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let fingerprint = SourceFingerprint.of(path)
        _ = try prepareFolder()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
        XCTAssertEqual(SourceFingerprint.of(path), fingerprint)
    }

    func testLeftoversOfAKilledRunAreRemovedAndNoTemporariesRemain() throws {
        try copy("photos/flowers.jpeg", to: "sku/1.jpg")
        try FileManager.default.createDirectory(atPath: output + "/sku", withIntermediateDirectories: true)
        let leftover = output + "/sku/.1.jpg\(AtomicFile.tempMarker)123-456"
        try Data("half an image".utf8).write(to: URL(fileURLWithPath: leftover))
        _ = try prepareFolder()
        let files = try FileManager.default.subpathsOfDirectory(atPath: output)
        XCTAssertFalse(files.contains { $0.contains(AtomicFile.tempMarker) }, "\(files)")
    }

    func testASecondRunIntoTheSameFolderIsRefusedWhileOneHoldsIt() throws {
        try copy("photos/flowers.jpeg", to: "sku/1.jpg")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let held = try OutputLock(folder: output)
        XCTAssertThrowsError(try prepareFolder()) { error in
            XCTAssertEqual(error as? ImagePipelineError, .outputLocked(directory: output))
        }
        withExtendedLifetime(held) {}
    }

    func testMoreThanFivePhotosInAProductIsAWarningNotAFailure() throws {
        for n in 1...6 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        let report = try prepareFolder()
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.written.count, 6)
        XCTAssertEqual(report.warnings.count, 1)
        XCTAssertTrue(report.warnings[0].contains("at most 5"))
    }

    func testNaturalOrder() {
        let names = ["IMG_10.jpg", "img_2.jpg", "IMG_1.jpg", "a.jpg", "IMG_02.jpg", "IMG_2b.jpg"]
        XCTAssertEqual(names.sorted(by: ProductScanner.inNaturalOrder),
                       ["a.jpg", "IMG_1.jpg", "IMG_02.jpg", "img_2.jpg", "IMG_2b.jpg", "IMG_10.jpg"])
    }
}

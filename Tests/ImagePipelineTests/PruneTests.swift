import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// A seller deletes photos or narrows the settings: the outputs no longer made are flagged, a prune
/// removes exactly them and their records, and a dry run lists exactly what it would remove.
final class PruneTests: FolderTestCase {
    private func runFolder(prepare: PrepareOptions? = PrepareOptions(), thumbnails: ThumbnailOptions? = nil,
                           prune: Bool = false, dryRun: Bool = false) throws -> FolderReport {
        var job = FolderJob(inputs: [input], outputFolder: output, prepare: prepare, thumbnails: thumbnails)
        job.prune = prune
        job.dryRun = dryRun
        let report = try FolderProcessor(job: job).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        return report
    }

    /// A deleted photo's upload image is flagged, and a prune removes it and its record.
    func testPrepareFlagsAndPrunesOutputsOfDeletedPhotos() throws {
        for name in ["a", "b"] { try copy("photos/DSCN0010.jpg", to: "sku/\(name).jpg") }
        _ = try runFolder()
        try FileManager.default.removeItem(atPath: input + "/sku/b.jpg")
        let flagged = try runFolder()
        XCTAssertEqual(flagged.orphans, ["sku/b.jpg"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/sku/b.jpg"))

        let pruned = try runFolder(prune: true)
        XCTAssertEqual(pruned.pruned, ["sku/b.jpg"])
        XCTAssertEqual(pruned.orphans, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/sku/b.jpg"))
        XCTAssertEqual(Manifest.load(from: output)?.outputs.map(\.output), ["sku/a.jpg"])
    }

    /// A dry run lists every file the real prune removes, thumbnails of a scale dropped from the
    /// settings included; without a prune they are flagged. A variant of zero points is refused.
    func testThumbsDryRunPruneListsExactlyWhatPruneRemoves() throws {
        for name in ["a", "b", "c"] { try copy("photos/DSCN0010.jpg", to: "sku/\(name).jpg") }
        _ = try runFolder(prepare: nil, thumbnails: ThumbnailOptions())
        try FileManager.default.removeItem(atPath: input + "/sku/c.jpg")
        var narrower = ThumbnailOptions()
        narrower.variants = [ThumbnailVariant(name: "list", points: 80), ThumbnailVariant(name: "grid", points: 0)]
        XCTAssertThrowsError(try narrower.validated(), "a zero-point variant is refused")
        var listOnly = ThumbnailOptions()
        listOnly.scales = [2]
        let dryRun = try runFolder(prepare: nil, thumbnails: listOnly, prune: true, dryRun: true)
        let flagged = try runFolder(prepare: nil, thumbnails: listOnly)
        let real = try runFolder(prepare: nil, thumbnails: listOnly, prune: true)
        XCTAssertEqual(Set(dryRun.pruned), Set(real.pruned))
        XCTAssertEqual(Set(flagged.orphans), Set(real.pruned))
        XCTAssertEqual(real.pruned.count, 8, "c's four, and the two @3x of a and of b: \(real.pruned)")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// The records of an output folder: journalled during a run, written once at its end and only when
/// they change, replayed after a kill, and honest about what pruning removed.
final class RecordsTests: FolderTestCase {
    private func process(_ thumbnails: ThumbnailOptions? = ThumbnailOptions(), prepare: PrepareOptions? = PrepareOptions(),
                     prune: Bool = false) throws -> FolderReport {
        var job = FolderJob(inputs: [input], outputFolder: output, prepare: prepare, thumbnails: thumbnails)
        job.prune = prune
        return try FolderProcessor(job: job).run()
    }

    /// Every file's identity and modification time, records included.
    private func snapshot() throws -> [String: [Double]] {
        var files: [String: [Double]] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) where !path.hasPrefix(".") {
            let attributes = try FileManager.default.attributesOfItem(atPath: output + "/" + path)
            files[path] = [(attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                           Double(attributes[.systemFileNumber] as? Int ?? 0)]
        }
        return files
    }

    /// Tools that watch a folder (sync clients, make) must see no change from a rerun that changed nothing.
    func testAnUnchangedRerunWritesNothingAtAll() throws {
        for n in 1...3 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        _ = try process()
        // Every output dated a day back: any rewrite would carry today's time.
        let dayAgo = Date().addingTimeInterval(-86_400)
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) {
            try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: output + "/" + path)
        }
        let before = try snapshot()
        XCTAssertNotNil(before["manifest.json"])
        XCTAssertNotNil(before["thumbs.json"])
        let rerun = try process()
        XCTAssertEqual(rerun.upToDate.count, 3)
        XCTAssertEqual(try snapshot(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/" + RecordJournal.fileName))
    }

    /// What a killed run journalled counts as done; a torn last line is skipped.
    func testAJournalLeftByAKilledRunIsReplayed() throws {
        for n in 1...3 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        let first = try process(nil)
        XCTAssertEqual(first.written.count, 3)
        // As if killed after two photos: no manifest yet, two lines in the journal, one torn.
        try FileManager.default.removeItem(atPath: output + "/manifest.json")
        let journal = RecordJournal(folder: output)
        for output in first.written.prefix(2) { try journal.append(.output(output)) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: output + "/" + RecordJournal.fileName))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"output":{"_0":{"source":"/tm"#.utf8))
        try handle.close()

        let rerun = try process(nil)
        XCTAssertEqual(Set(rerun.upToDate.map(\.source)), Set(first.written.prefix(2).map(\.source)))
        XCTAssertEqual(rerun.written.map(\.source), [first.written[2].source])
        XCTAssertEqual(Manifest.load(from: output)?.outputs.count, 3)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/" + RecordJournal.fileName))
    }

    /// A file that could not be removed is a warning, not a line in "pruned".
    func testPruneReportsOnlyWhatItRemoved() throws {
        for n in 1...2 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        _ = try process(prepare: nil)
        try FileManager.default.removeItem(atPath: input + "/sku/2.jpg")
        // A folder where a thumbnail was: unlink(2) fails on it.
        try FileManager.default.removeItem(atPath: output + "/sku/2.list@2x.jpg")
        try FileManager.default.createDirectory(atPath: output + "/sku/2.list@2x.jpg", withIntermediateDirectories: false)
        let report = try process(prepare: nil, prune: true)
        XCTAssertEqual(Set(report.pruned), ["sku/2.list@3x.jpg", "sku/2.grid@2x.jpg", "sku/2.grid@3x.jpg"])
        XCTAssertTrue(report.warnings.contains { $0.contains("could not prune sku/2.list@2x.jpg") }, "\(report.warnings)")
    }

    /// Orphans are found in every output format, not only JPEG and WebP.
    func testPNGThumbnailsOfADroppedVariantArePruned() throws {
        try copy("alpha/alpha-layer-1-fill.png", to: "sku/cut.png")
        var options = ThumbnailOptions()
        options.format = .png
        _ = try process(options, prepare: nil)
        options.variants = [ThumbnailVariant(name: "list", points: 80)]
        let narrowed = try process(options, prepare: nil, prune: true)
        XCTAssertEqual(Set(narrowed.pruned), ["sku/cut.grid@2x.png", "sku/cut.grid@3x.png"])
    }
}

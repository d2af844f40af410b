import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// What a new user tripped over with folders, each done the way they did it, through the command.
final class NewUserTests: FolderTestCase {
    private func tool(_ arguments: [String]) throws -> CommandLineTool.Result {
        try CommandLineTool.run(arguments)
    }

    private func report(_ result: CommandLineTool.Result) throws -> FolderReport {
        try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
    }

    /// The same folder twice, a file three times, a folder and a file inside it: each photo once.
    func testTheSameInputGivenTwiceIsUsedOnce() throws {
        try copy("photos/DSCN0010.jpg", to: "shop/Blue Vase/front.jpg")
        try copy("photos/flowers.jpeg", to: "shop/Blue Vase/side.jpg")
        let vase = input + "/shop/Blue Vase"
        let twice = try tool(["prepare", vase, vase, "--out", output + "/a", "--json"])
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertEqual(try report(twice).written.map(\.output), ["Blue Vase/front.jpg", "Blue Vase/side.jpg"])
        XCTAssertTrue(twice.stderr.contains("given more than once; used once"), twice.stderr)

        let file = vase + "/front.jpg"
        let thrice = try tool(["prepare", file, file, file, vase, "--out", output + "/b", "--json"])
        let made = try report(thrice)
        XCTAssertEqual(made.written.map(\.output).sorted(), ["Blue Vase/side.jpg", "front.jpg"])
        XCTAssertEqual(Manifest.load(from: output + "/b")?.outputs.count, 2, "everything written is recorded")
        let files = try FileManager.default.subpathsOfDirectory(atPath: output + "/b").filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(files.sorted(), ["Blue Vase/side.jpg", "front.jpg"], "no -2 copies")
    }

    /// `--out` is the input folder, or holds it: refused before anything is written. An output
    /// folder inside the input is simply not read.
    func testTheOutputFolderNeverFeedsOnItself() throws {
        try copy("photos/DSCN0010.jpg", to: "samedir/a.jpg")
        for out in [input + "/samedir", input + "/samedir/", input] {
            let result = try tool(["prepare", input + "/samedir", "--out", out])
            XCTAssertEqual(result.status, 2, "\(out): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("choose a folder of its own"), result.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: input + "/samedir"), ["a.jpg"])

        let inside = input + "/samedir/ready"
        for _ in 0..<2 {
            let run = try tool(["prepare", input + "/samedir", "--out", inside, "--json"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(try report(run).written.count + (try report(run)).upToDate.count, 1)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inside).filter { !$0.hasPrefix(".") }.sorted(), ["manifest.json", "samedir"])
    }

    /// A seller deletes a photo: its upload image is flagged, and `--prune` removes it and its record.
    func testPrepareFlagsAndPrunesOutputsOfDeletedPhotos() throws {
        for name in ["a", "b"] { try copy("photos/DSCN0010.jpg", to: "sku/\(name).jpg") }
        XCTAssertEqual(try tool(["prepare", input, "--out", output]).status, 0)
        try FileManager.default.removeItem(atPath: input + "/sku/b.jpg")
        let flagged = try tool(["prepare", input, "--out", output, "--json"])
        XCTAssertEqual(try report(flagged).orphans, ["sku/b.jpg"])
        XCTAssertTrue(flagged.stderr.contains("1 file of photos or settings no longer used remain"), flagged.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/sku/b.jpg"))

        let pruned = try tool(["prepare", input, "--out", output, "--prune", "--json"])
        XCTAssertEqual(try report(pruned).pruned, ["sku/b.jpg"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/sku/b.jpg"))
        XCTAssertEqual(Manifest.load(from: output)?.outputs.map(\.output), ["sku/a.jpg"])
    }

    /// A dry run lists every file the real prune removes, variants dropped from the settings included,
    /// and a run without --prune says they are there.
    func testThumbsDryRunPruneListsExactlyWhatPruneRemoves() throws {
        for name in ["a", "b", "c"] { try copy("photos/DSCN0010.jpg", to: "sku/\(name).jpg") }
        XCTAssertEqual(try tool(["thumbs", input, "--out", output]).status, 0)
        try FileManager.default.removeItem(atPath: input + "/sku/c.jpg")
        let narrower = ["thumbs", input, "--out", output, "--variant", "list=80", "--variant", "grid=0"]
        XCTAssertEqual(try tool(narrower).status, 2, "a zero-point variant is refused")
        let listOnly = ["thumbs", input, "--out", output, "--scales", "2"]
        let dryRun = try report(try tool(listOnly + ["--prune", "--dry-run", "--json"]))
        let hint = try tool(listOnly)
        XCTAssertTrue(hint.stderr.contains("--prune removes them"), hint.stderr)
        let real = try report(try tool(listOnly + ["--prune", "--json"]))
        XCTAssertEqual(Set(dryRun.pruned), Set(real.pruned))
        XCTAssertEqual(real.pruned.count, 8, "c's four, and the two @3x of a and of b: \(real.pruned)")
    }

    /// `prepare --thumbs` keeps thumbnails apart, so its product folders can be registered as they are.
    func testPrepareWithThumbsLeavesProductFoldersUploadable() throws {
        for name in ["1", "2"] { try copy("photos/DSCN0010.jpg", to: "sku/IMG_\(name).jpg") }
        let result = try tool(["prepare", input, "--out", output, "--thumbs", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output + "/sku").sorted(), ["IMG_1.jpg", "IMG_2.jpg"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output + "/thumbnails/sku").count, 8)
        XCTAssertNotNil(ThumbnailIndex.load(from: output + "/thumbnails"))
        // The output folder as input: the thumbnails folder is not a product.
        let scan = ProductScanner().scan([output])
        XCTAssertEqual(scan.products.map(\.name), ["sku"])
        XCTAssertEqual(scan.warnings, [])
        let rerun = try report(try tool(["prepare", input, "--out", output, "--thumbs", "--json"]))
        XCTAssertEqual(rerun.thumbnailsUpToDate, 2)
    }

    func testPhotosNestedBelowProductFoldersAreNamedInAWarning() throws {
        try copy("photos/DSCN0010.jpg", to: "shop/sku-1/a.jpg")
        try copy("photos/DSCN0010.jpg", to: "shop/sku-2/angles/b.jpg")
        let result = try tool(["prepare", input + "/shop", "--out", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("sku-2: photos in its subfolders (angles) are not read"), result.stderr)
    }

    /// Mistakes about the output folder are usage errors, and a missing input creates nothing.
    func testOutputFolderMistakes() throws {
        let file = root + "/notes.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try tool(["prepare", Fixture.path("photos/DSCN0010.jpg"), "--out", file]).status, 2)
        let missing = try tool(["prepare", root + "/no-such-folder", "--out", output])
        XCTAssertEqual(missing.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing created for a typo")

        try copy("photos/DSCN0010.jpg", to: "a.jpg")
        let partly = try tool(["prepare", input + "/a.jpg", root + "/no-such-folder", "--out", output])
        XCTAssertEqual(partly.status, 1)
        XCTAssertEqual(Manifest.load(from: output)?.failures.map(\.source), [root + "/no-such-folder"])
    }

    func testMaxEdgeBelowTheDefaultMinimumJustWorks() throws {
        let result = try tool(["prepare", Fixture.path("photos/jolla.jpg"), "--out", output, "--max-edge", "100", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try report(result).written.first.map { max($0.width, $0.height) }, 100)
    }

    /// Results stream as photos finish, even into a pipe; summaries count in words.
    func testLinesStreamAndCountsReadAsEnglish() throws {
        try copy("photos/DSCN0010.jpg", to: "one.jpg")
        let result = try tool(["thumbs", input + "/one.jpg", "--out", output])
        XCTAssertTrue(result.stderr.contains("thumbnails for 1 photo,"), result.stderr)
        XCTAssertFalse(result.stderr.contains("the server takes at most"), "thumbs has no upload limit")
        // Into a pipe: the first photo's line arrives while the run is still working on the others.
        let process = Process()
        process.executableURL = CommandLineTool.executable
        process.arguments = ["prepare", Fixture.path("photos/DSCN0010.jpg"), Fixture.path("photos/jolla.jpg"),
                             Fixture.path("photos/iphone_13_pro_max.HEIC"), Fixture.path("photos/2569067123_aca715a2ee_o.jpg"),
                             "--out", output + "/stream", "--jobs", "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        let firstLine = Date()
        received += pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // Three more photos, a 12 MP HEIC among them, were still to come when the first line arrived.
        XCTAssertGreaterThan(Date().timeIntervalSince(firstLine), 0.1, "the first line came only at the end")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: received, as: UTF8.self).split(separator: "\n").count, 4)
    }

    /// What a new user read wrong: `--help` that promised what a command does not do, a report
    /// naming a folder that was never made, a lock file left among the outputs, "photo(s)".
    func testHelpReportsAndCountsSayWhatHappens() throws {
        let help = { (command: String) in try self.tool([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        XCTAssertTrue(try help("publish").contains("print the exact HTTP requests (secrets redacted), publish its plan"))
        XCTAssertTrue(try help("prepare").contains("Thumbnail format with --thumbs: jpeg, webp, png, avif or jxl"))
        try copy("photos/DSCN0010.jpg", to: "one.jpg")
        let prepared = try tool(["prepare", input + "/one.jpg", "--out", output, "--json"])
        XCTAssertEqual(prepared.status, 0, prepared.stderr)
        XCTAssertFalse(prepared.stdout.contains("thumbnailFolder"), "no --thumbs, no thumbnail folder: \(prepared.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/.market-images.lock"))
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: input + "/two.jpg"))
        let register = try tool(["register", input + "/two.jpg", "--name", "Broken one", "--description", "A photo that is not one.",
                                 "--price", "1000", "--stock", "1", "--server", "http://127.0.0.1:9", "--dialect", "openmarket", "--dry-run"])
        XCTAssertTrue(register.stderr.contains("1 photo could not be prepared; nothing was sent"), register.stderr)
    }
}

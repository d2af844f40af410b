import Foundation
import TestSupport
import XCTest

/// What a new user tripped over with folders, each done the way they did it, through the command.
/// (What the runs themselves did is checked in process: ImagePipelineTests' InputListTests,
/// OutputFolderMistakeTests, PruneTests and PrepareWithThumbsTests.)
final class NewUserTests: FolderTestCase {
    private func tool(_ arguments: [String]) throws -> CommandLineTool.Result {
        try CommandLineTool.run(arguments)
    }

    /// Results stream as photos finish, even into a pipe; summaries and warnings count in words.
    func testLinesStreamAndCountsReadAsEnglish() throws {
        try copy("photos/DSCN0010.jpg", to: "one.jpg")
        let result = try tool(["thumbs", input + "/one.jpg", "--out", output, "--scales", "2", "--variant", "detail=100"])
        XCTAssertTrue(result.stderr.contains("thumbnails for 1 photo,"), result.stderr)
        XCTAssertFalse(result.stderr.contains("the server takes at most"), "thumbs has no upload limit")
        let narrower = try tool(["thumbs", input + "/one.jpg", "--out", output, "--scales", "2"])
        XCTAssertTrue(narrower.stderr.contains("1 file of photos or settings no longer used remain in \(output); --prune removes them"),
                      narrower.stderr)
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
        XCTAssertTrue(try help("prepare").contains("Thumbnail format with --thumbs: jpeg, webp, png, avif, jxl or gif"))
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

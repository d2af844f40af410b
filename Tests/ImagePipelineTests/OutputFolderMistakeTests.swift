import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Output folders a new user got wrong: the input folder itself, a folder holding it, a file, or a
/// typo among the inputs. Each is found before anything is written, and a typo creates nothing.
final class OutputFolderMistakeTests: FolderTestCase {
    /// The input folder, however it is spelled, or a folder holding it, is refused as the output
    /// folder; a folder inside the input is fine and simply not read.
    func testTheOutputFolderNeverFeedsOnItself() throws {
        try copy("photos/DSCN0010.jpg", to: "samedir/a.jpg")
        let samedir = input + "/samedir"
        for out in [samedir, samedir + "/", input] {
            XCTAssertEqual(OutputFolderMistake.check(output: out, inputs: [samedir]), .holdsInput(output: out, input: samedir), out)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: samedir)
        XCTAssertEqual(OutputFolderMistake.check(output: root + "/link", inputs: [samedir]), .holdsInput(output: root + "/link", input: samedir),
                       "a link to the input folder is the input folder")
        XCTAssertTrue(OutputFolderMistake.holdsInput(output: input, input: samedir).description.contains("is the input folder"))

        let inside = samedir + "/ready"
        XCTAssertNil(OutputFolderMistake.check(output: inside, inputs: [samedir]))
        for _ in 0..<2 {
            let run = try prepareRun([samedir], into: inside)
            XCTAssertTrue(run.succeeded, "\(run.failed)")
            XCTAssertEqual(run.written.count + run.upToDate.count, 1)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inside).filter { !$0.hasPrefix(".") }.sorted(), ["manifest.json", "samedir"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: samedir).sorted(), ["a.jpg", "ready"])
    }

    /// A file as the output folder is refused; a missing input creates nothing, and beside a photo
    /// it is recorded as failed.
    func testOutputFolderMistakes() throws {
        let file = root + "/notes.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(OutputFolderMistake.check(output: file, inputs: [Fixture.path("photos/DSCN0010.jpg")]), .isAFile(path: file))
        XCTAssertNil(OutputFolderMistake.check(output: output, inputs: [Fixture.path("photos/DSCN0010.jpg")]), "a folder to be made is fine")

        let missing = try prepareRun([root + "/no-such-folder"], into: output)
        XCTAssertFalse(missing.succeeded)
        XCTAssertEqual(missing.failed.map(\.cause), [.sourceUnreadable(errno: ENOENT)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing created for a typo")

        try copy("photos/DSCN0010.jpg", to: "a.jpg")
        let partly = try prepareRun([input + "/a.jpg", root + "/no-such-folder"], into: output)
        XCTAssertFalse(partly.succeeded)
        XCTAssertEqual(partly.written.count, 1)
        XCTAssertEqual(Manifest.load(from: output)?.failures.map(\.source), [root + "/no-such-folder"])
    }
}

import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// The tool's wording of the libraries' errors: each says what to do, in this tool's flags.
final class ErrorAdviceTests: FolderTestCase {
    func testTheCommandLineSaysWhatToDo() throws {
        let folder = try temporaryFolder(self)
        let giant = try CommandLineTool.run(["inspect", Fixture.path("hostile/giant-image.jpg")])
        XCTAssertEqual(giant.status, 1)
        XCTAssertTrue(giant.stderr.contains("refused before decoding. If the image is genuine, raise --max-pixels"), giant.stderr)
        let tight = try CommandLineTool.run(["prepare", Fixture.path("photos/jolla.jpg"), "--out", folder, "--max-bytes", "2000"])
        XCTAssertEqual(tight.status, 1)
        XCTAssertTrue(tight.stderr.contains("raise --max-bytes or lower --min-quality"), tight.stderr)
        let empty = folder + "/empty.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let emptyRun = try CommandLineTool.run(["prepare", empty, "--out", folder + "/out"])
        XCTAssertTrue(emptyRun.stderr.contains("the file is empty (0 bytes); copy the photo again from its source"), emptyRun.stderr)
    }

    /// A disk that fills up stops the run with one error, which says what to do, in `--json` too.
    /// (What the run kept and its rerun are ImagePipelineTests' OutputFolderFaultTests.)
    func testAFullDiskIsOneErrorThatSaysWhatToDo() throws {
        for photo in ["photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/2569067123_aca715a2ee_o.jpg", "alpha/alpha-layer-1-fill.png"]
            + (1...8).map({ "orientation/Landscape_\($0).jpg" }) {
            try copy(photo, to: (photo as NSString).lastPathComponent)
        }
        let result = try CommandLineTool.run(["prepare", input, "--out", try mountedFolder(size: "400k"), "--json", "--jobs", "1"])
        XCTAssertEqual(result.status, 1)
        let stopped = try XCTUnwrap(try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8)).stopped, result.stderr)
        XCTAssertTrue(stopped.contains("No space left on device; free some space or choose another --out"), stopped)
        XCTAssertEqual(result.stderr.components(separatedBy: "error: ").count - 1, 1, "one error: \(result.stderr)")
    }
}

import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// The tool's wording of the libraries' errors: each says what to do, in this tool's flags.
final class ErrorAdviceTests: XCTestCase {
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
}

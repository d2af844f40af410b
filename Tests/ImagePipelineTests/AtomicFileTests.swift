import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// The one atomic-write helper every file goes through: errno kept, nothing left behind, no
/// descriptor leaked on any failure path.
final class AtomicFileTests: FolderTestCase {
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testFailuresKeepTheirErrnoAndLeakNothing() throws {
        let full = try mountedFolder(size: "64k")
        let before = try openDescriptors()
        let data = Data(count: 100_000)
        for index in 0..<200 {
            XCTAssertThrowsError(try AtomicFile.write(data, toPath: full + "/\(index).jpg")) { error in
                XCTAssertEqual(error as? ImagePipelineError, .outputUnavailable(path: full + "/\(index).jpg", errno: ENOSPC))
            }
            XCTAssertThrowsError(try AtomicFile.write(data, toPath: root + "/missing/\(index).jpg")) { error in
                XCTAssertEqual(error as? ImagePipelineError, .outputFailed(path: root + "/missing/\(index).jpg", errno: ENOENT))
            }
        }
        XCTAssertEqual(try openDescriptors(), before, "every descriptor closed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: full), [], "no temporary left behind")
    }

    func testAWriteReplacesTheWholeFileAndLeavesNoTemporary() throws {
        let path = root + "/record.json"
        try AtomicFile.write(Data("old".utf8), toPath: path)
        try AtomicFile.write(Data("new contents".utf8), toPath: path, durability: .atomicOnly)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new contents")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(), ["record.json"])
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// File and folder names are data, never instructions: whatever a seller's folder (or a zip they
/// were sent) contains, every command writes only inside `--out`, reads only its inputs, and prints
/// names that cannot forge lines of output.
final class PathSafetyTests: FolderTestCase {
    static let hostileNames = ["tab\there.jpg", ".hidden.jpg", "a.market-images-tmp-1-2.jpg",
                               "back\\slash.jpg", "-rf.jpg", "..jpg", "quote\"s.jpg", "카메라.jpg"]

    /// Every file under `folder` with its size and modification time.
    private func snapshot(_ folder: String) -> [String: String] {
        var files: [String: String] = [:]
        for relative in FileManager.default.subpaths(atPath: folder) ?? [] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + relative)
            files[relative] = "\(attributes?[.size] ?? 0) \(attributes?[.modificationDate] ?? "")"
        }
        return files
    }

    func testHostileNamesStayInsideTheOutputFolderAndCannotForgeOutput() throws {
        for name in Self.hostileNames { try copy("orientation/Landscape_1.jpg", to: name) }
        try copy("hostile/not-an-image.jpg", to: "bad\nerror: forged by a file name.jpg")
        try copy("orientation/Landscape_6.jpg", to: "…\n/x.jpg")
        try copy("orientation/Landscape_3.jpg", to: "sku\r2/y.jpg")
        let inputsBefore = snapshot(input)
        let elsewhereBefore = snapshot(root).filter { !$0.key.hasPrefix("in") }

        // Hidden files in a folder are skipped (Finder's ._ files, .DS_Store); given by name, one is used.
        let arguments = ["prepare", input, input + "/.hidden.jpg", "--out", output, "--thumbs", "--json"]
        let expected = Self.hostileNames.count - 2 + 2 + 1
        let result = try CommandLineTool.run(arguments)
        XCTAssertEqual(result.status, 1, result.stderr)
        let report = try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.written.count, expected)
        XCTAssertTrue(report.written.contains { $0.output == "_hidden.jpg" }, "\(report.written.map(\.output))")

        XCTAssertEqual(snapshot(input), inputsBefore, "inputs untouched")
        let elsewhereAfter = snapshot(root).filter { !$0.key.hasPrefix("in") && !$0.key.hasPrefix("out") }
        XCTAssertEqual(elsewhereAfter, elsewhereBefore.filter { !$0.key.hasPrefix("out") }, "nothing written outside --out")
        XCTAssertNil(snapshot(output)[".market-images.lock"], "the run's lock file goes with the run")
        for relative in snapshot(output).keys {
            for component in relative.split(separator: "/") {
                XCTAssertFalse(component.hasPrefix("."), "hidden output \(relative.debugDescription)")
                XCTAssertFalse(component.unicodeScalars.contains { $0.properties.generalCategory == .control },
                               "control character in \(relative.debugDescription)")
            }
        }
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        XCTAssertEqual(errorLines.count, 1, "a file name forged an error line: \(result.stderr)")
        XCTAssertTrue(errorLines.first?.contains("bad\\nerror: forged by a file name.jpg: not a supported image") ?? false, result.stderr)

        // The photo whose name looks like one of the run's temporaries survives the next run's cleanup.
        let rerun = try JSONDecoder().decode(FolderReport.self, from: Data(try CommandLineTool.run(arguments).stdout.utf8))
        XCTAssertEqual(rerun.upToDate.count, expected)
        XCTAssertEqual(rerun.failed.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/in/a.market-images-tmp-1-2.jpg"))
    }

    func testASymbolicLinkPlantedInTheOutputFolderIsNotFollowedOut() throws {
        try copy("orientation/Landscape_1.jpg", to: "sku/photo.jpg")
        let outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: output + "/sku", withDestinationPath: outside)

        let result = try CommandLineTool.run(["prepare", input, "--out", output])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("a symbolic link in the output folder leads outside it"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
    }
}

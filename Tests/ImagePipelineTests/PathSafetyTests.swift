import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// File and folder names are data, never instructions: whatever a seller's folder (or a zip they
/// were sent) contains, a run writes only inside its output folder and reads only its inputs. (That
/// a printed name cannot forge a line of output is the command's: CommandLineTests.)
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

    /// Upload images with thumbnails beside them, as `prepare --thumbs` makes them.
    private func prepareWithThumbnails(_ inputs: [String]) throws -> FolderReport {
        var job = FolderJob(inputs: inputs, outputFolder: output, prepare: PrepareOptions(), thumbnails: ThumbnailOptions())
        job.thumbnailSubfolder = FolderJob.thumbnailsBesideUploads
        return try FolderProcessor(job: job).run()
    }

    func testHostileNamesStayInsideTheOutputFolder() throws {
        for name in Self.hostileNames { try copy("orientation/Landscape_1.jpg", to: name) }
        try copy("hostile/not-an-image.jpg", to: "bad\nerror: forged by a file name.jpg")
        try copy("orientation/Landscape_6.jpg", to: "…\n/x.jpg")
        try copy("orientation/Landscape_3.jpg", to: "sku\r2/y.jpg")
        let inputsBefore = snapshot(input)
        let elsewhereBefore = snapshot(root).filter { !$0.key.hasPrefix("in") }

        // Hidden files in a folder are skipped (Finder's ._ files, .DS_Store); given by name, one is used.
        let inputs = [input, input + "/.hidden.jpg"]
        let expected = Self.hostileNames.count - 2 + 2 + 1
        let report = try prepareWithThumbnails(inputs)
        XCTAssertFalse(report.succeeded)
        XCTAssertEqual(report.written.count, expected)
        XCTAssertTrue(report.written.contains { $0.output == "_hidden.jpg" }, "\(report.written.map(\.output))")

        XCTAssertEqual(snapshot(input), inputsBefore, "inputs untouched")
        let elsewhereAfter = snapshot(root).filter { !$0.key.hasPrefix("in") && !$0.key.hasPrefix("out") }
        XCTAssertEqual(elsewhereAfter, elsewhereBefore.filter { !$0.key.hasPrefix("out") }, "nothing written outside the output folder")
        XCTAssertNil(snapshot(output)[".market-images.lock"], "the run's lock file goes with the run")
        for relative in snapshot(output).keys {
            for component in relative.split(separator: "/") {
                XCTAssertFalse(component.hasPrefix("."), "hidden output \(relative.debugDescription)")
                XCTAssertFalse(component.unicodeScalars.contains { $0.properties.generalCategory == .control },
                               "control character in \(relative.debugDescription)")
            }
        }
        XCTAssertEqual(report.failed.map(\.source), [input + "/bad\nerror: forged by a file name.jpg"])
        XCTAssertEqual(report.failed.first?.cause, .unsupportedFormat)

        // The photo whose name looks like one of the run's temporaries survives the next run's cleanup.
        let rerun = try prepareWithThumbnails(inputs)
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

        let report = try FolderProcessor(job: FolderJob(inputs: [input], outputFolder: output)).run()
        XCTAssertFalse(report.succeeded)
        XCTAssertEqual(report.failed.map(\.cause), [.outputUnsafe(path: output + "/sku/photo.jpg")])
        XCTAssertTrue(report.failed.first?.error.contains("a symbolic link in the output folder leads outside it") ?? false, "\(report.failed)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
    }
}

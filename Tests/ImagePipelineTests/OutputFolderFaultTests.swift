import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Output folders that cannot take a run: one another run holds, a disk that fills up, a read-only
/// one. Nothing partial or corrupt is left, the records stay valid, the inputs are untouched, and a
/// rerun does exactly the missing work. (Runs killed mid-way are the command's: CommandLineTests'
/// FaultTests.)
final class OutputFolderFaultTests: FolderTestCase {
    static let photos = Fixture.runPhotos

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copyFlat(Self.photos)
    }

    private func prepare(into folder: String, jobs: Int = 2, onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws -> FolderReport {
        try Self.prepare(input, into: folder, jobs: jobs, onEvent: onEvent)
    }

    private static func prepare(_ input: String, into folder: String, jobs: Int = 2,
                                onEvent: @escaping @Sendable (FolderEvent) -> Void = { _ in }) throws(ImagePipelineError) -> FolderReport {
        var job = FolderJob(inputs: [input], outputFolder: folder)
        job.jobs = jobs
        return try FolderProcessor(job: job).run(onEvent: onEvent)
    }

    private func inputChecksums() throws -> [String: String] {
        try Dictionary(uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: input).map {
            ($0, Fingerprint.hex(String(decoding: try Data(contentsOf: URL(fileURLWithPath: input + "/" + $0)).base64EncodedData(), as: UTF8.self)))
        })
    }

    /// A second run into the folder, started once the first has planned its work (and so holds the
    /// folder), is refused with the folder named and writes nothing; the first finishes normally.
    func testTwoRunsIntoOneFolderDoNotInterleave() throws {
        let (input, output) = (self.input, self.output)
        let second = Locked<Result<FolderReport, ImagePipelineError>?>(nil)
        let first = try prepare(into: output) { event in
            guard case .planned = event else { return }
            second.withLock { $0 = Result { () throws(ImagePipelineError) in try Self.prepare(input, into: output) } }
        }
        XCTAssertTrue(first.succeeded, "\(first.failed)")
        XCTAssertEqual(first.written.count, Self.photos.count)
        guard case .failure(let refusal)? = second.current else { return XCTFail("the second run was not refused: \(String(describing: second.current))") }
        XCTAssertEqual(refusal, .outputLocked(directory: output))
        XCTAssertTrue(refusal.description.contains("another market-images run is writing to \(output)"), refusal.description)
        let recorded = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: output + "/manifest.json")))
        XCTAssertEqual(recorded.outputs.count, Self.photos.count)
        XCTAssertEqual(try finishedSources(in: output, records: "manifest.json", scratch: root, trial: "race").count, Self.photos.count)
    }

    /// A full disk stops the run with one error (not one per photo), keeps what was finished, and a
    /// rerun with space completes the rest.
    func testFullDiskStopsTheRunCleanlyAndARerunFinishes() throws {
        let out = try mountedFolder(size: "400k")
        let before = try inputChecksums()
        let report = try prepare(into: out, jobs: 1)
        XCTAssertFalse(report.succeeded)
        guard case .outputUnavailable(_, ENOSPC)? = report.stopCause else { return XCTFail("\(String(describing: report.stopCause))") }
        XCTAssertTrue(report.stopped?.contains("No space left on device") ?? false, "\(String(describing: report.stopped))")
        XCTAssertGreaterThan(report.notProcessed, 0)
        XCTAssertEqual(report.failed.count, 0, "one error for the run, not one per photo: \(report.failed)")
        let done = try finishedSources(in: out, records: "manifest.json", scratch: root, trial: "full disk")
        XCTAssertFalse(done.isEmpty, "photos finished before the disk filled are kept")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains(".market-images-tmp-") }
        XCTAssertEqual(leftovers, [])
        XCTAssertEqual(try inputChecksums(), before, "inputs untouched")

        let remount = Process()
        remount.executableURL = URL(fileURLWithPath: "/bin/mount")
        remount.arguments = ["-o", "remount,size=20m", out]
        try remount.run()
        remount.waitUntilExit()
        let rerun = try prepare(into: out)
        XCTAssertNil(rerun.stopped)
        XCTAssertEqual(Set(rerun.upToDate.map(\.source)), done)
        XCTAssertEqual(rerun.written.count + rerun.upToDate.count, Self.photos.count)
    }

    /// A read-only output folder is one error for the folder, before any photo is read.
    func testReadOnlyOutputFolderIsAClearErrorBeforeAnyWork() throws {
        let out = try mountedFolder(size: "1m", readOnly: true)
        let events = Locked(0)
        XCTAssertThrowsError(try prepare(into: out + "/ready") { _ in events.withLock { $0 += 1 } }) { error in
            guard case .outputUnavailable(_, EROFS)? = error as? ImagePipelineError else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("Read-only file system"), "\(error)")
        }
        XCTAssertEqual(events.current, 0, "no photo planned or processed")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Runs killed mid-way, as a laptop dies: nothing partial or corrupt is left in the output folder,
/// the records stay valid JSON, and a rerun does exactly the missing work. (Races, full disks and
/// read-only folders are run in process: ImagePipelineTests' OutputFolderFaultTests.)
final class FaultTests: FolderTestCase {
    static let photos = Fixture.runPhotos

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copyFlat(Self.photos)
    }

    private func report(_ result: CommandLineTool.Result, file: StaticString = #filePath, line: UInt = #line) throws -> FolderReport {
        XCTAssertNil(result.signal, result.stderr, file: file, line: line)
        return try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
    }

    /// SIGKILL at 8 random points of a run, alternating `prepare` and `thumbs` (12 and 20 proved
    /// nothing more): once a random number of its outputs are finished, so every kill lands mid-run
    /// whatever the machine's speed.
    func testKilledRunsLeaveNothingPartialAndRerunsDoExactlyTheMissingWork() throws {
        var generator = SeededGenerator(seed: 0x51_6B11)
        var interrupted = 0
        for trial in 0..<8 {
            let command = trial % 2 == 0 ? "prepare" : "thumbs"
            let records = command == "prepare" ? "manifest.json" : "thumbs.json"
            let out = root + "/out-\(trial)"
            let outputs = command == "prepare" ? Self.photos.count : Self.photos.count * 4
            let finished = Int.random(in: 0..<outputs, using: &generator)
            let running = try CommandLineTool.launch([command, input, "--out", out])
            blockUntil("\(finished) outputs of \(command)", seconds: 120) { running.hasExited || Self.finishedOutputs(in: out) >= finished }
            running.kill()
            if running.wait().signal == SIGKILL { interrupted += 1 }

            let name = "trial \(trial) (\(command))"
            let done = try finishedSources(in: out, records: records, scratch: root, trial: name)
            let rerun = try report(CommandLineTool.run([command, input, "--out", out, "--json"]))
            XCTAssertTrue(rerun.failed.isEmpty, "\(name): \(rerun.failed)")
            if command == "prepare" {
                XCTAssertEqual(Set(rerun.upToDate.map(\.source)), done, name)
                XCTAssertEqual(rerun.written.count + rerun.upToDate.count, Self.photos.count, name)
            } else {
                let remade = Set(rerun.thumbnailsWritten.map(\.source))
                XCTAssertTrue(remade.isDisjoint(with: done), "\(name): redid finished thumbnails")
                XCTAssertEqual(remade.union(done).count, Self.photos.count, name)
            }
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.contains(".market-images-tmp-") }
            XCTAssertEqual(leftovers, [], "\(name): a rerun cleans up what the killed run left")
            _ = try finishedSources(in: out, records: records, scratch: root, trial: name + " rerun")
        }
        XCTAssertGreaterThan(interrupted, 4, "most kills must land while the run is working")
    }

    /// Images written in full under `folder` (not the temporary files they are written as).
    private static func finishedOutputs(in folder: String) -> Int {
        (FileManager.default.subpaths(atPath: folder) ?? []).filter { $0.hasSuffix(".jpg") && !$0.contains(".market-images-tmp-") }.count
    }
}

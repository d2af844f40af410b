import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Runs that die, race, or run out of disk: nothing partial or corrupt is ever left in the output
/// folder, the records stay valid JSON, the inputs are untouched, and a rerun does exactly the
/// missing work.
final class FaultTests: FolderTestCase {
    static let photos = ["photos/flowers.jpeg", "photos/DSCN0010.jpg", "photos/2569067123_aca715a2ee_o.jpg",
                         "alpha/alpha-layer-1-fill.png"] + (1...8).map { "orientation/Landscape_\($0).jpg" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        for fixture in Self.photos {
            try copy(fixture, to: (fixture as NSString).lastPathComponent)
        }
    }

    private func report(_ result: CommandLineTool.Result, file: StaticString = #filePath, line: UInt = #line) throws -> FolderReport {
        XCTAssertNil(result.signal, result.stderr, file: file, line: line)
        return try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
    }

    /// Every visible file in the output is a record that parses or an image that decodes completely.
    /// Returns the sources the records say are done: in the document, or in the journal a killed run
    /// leaves for the next one (a torn last line there is allowed and ignored).
    private func checkNothingPartial(_ folder: String, records: String, trial: String) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        var recorded: Set<String> = []
        let kind = records == "manifest.json" ? "output" : "thumbnails"
        let journal = FileManager.default.contents(atPath: folder + "/.market-images-journal") ?? Data()
        for line in journal.split(separator: UInt8(ascii: "\n")) {
            let entry = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: [String: [String: Any]]]
            if let source = entry?[kind]?["_0"]?["source"] as? String { recorded.insert(source) }
        }
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                  !(name as NSString).lastPathComponent.hasPrefix(".") else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if name.hasSuffix(".json") {
                let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                XCTAssertNotNil(json, "\(trial): \(name) is not valid JSON")
                if name == records {
                    let key = records == "manifest.json" ? "outputs" : "sources"
                    // Stored relative to the folder.
                    for entry in json?[key] as? [[String: Any]] ?? [] {
                        let source = entry["source"] as? String ?? ""
                        XCTAssertFalse(source.hasPrefix("/"), "\(trial): \(source) is stored absolute")
                        recorded.insert(URL(fileURLWithPath: source, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path)
                    }
                }
            } else {
                XCTAssertNoThrow(try readBack(data, in: root, name: "check"), "\(trial): \(name) is partial or corrupt")
            }
        }
        return recorded
    }

    /// SIGKILL at 12 random points of a run, alternating `prepare` and `thumbs` (20 proved nothing
    /// more): once a random number of its outputs are finished, so every kill lands mid-run whatever
    /// the machine's speed.
    func testKilledRunsLeaveNothingPartialAndRerunsDoExactlyTheMissingWork() throws {
        var generator = SeededGenerator(seed: 0x51_6B11)
        var interrupted = 0
        for trial in 0..<12 {
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
            let done = try checkNothingPartial(out, records: records, trial: name)
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
            _ = try checkNothingPartial(out, records: records, trial: name + " rerun")
        }
        XCTAssertGreaterThan(interrupted, 6, "most kills must land while the run is working")
    }

    /// Two runs into one folder at once: the second is refused by the lock, names the folder, and
    /// writes nothing; the first finishes normally.
    func testTwoRunsIntoOneFolderDoNotInterleave() throws {
        let first = try CommandLineTool.launch(["prepare", input, "--out", output, "--json"])
        let manifest = output + "/manifest.json"
        let lock = output + "/.market-images.lock"
        blockUntil("the first run to take the lock") { FileManager.default.fileExists(atPath: lock) }
        let second = try CommandLineTool.run(["prepare", input, "--out", output, "--json"])
        let firstResult = first.wait()
        XCTAssertEqual(firstResult.status, 0, firstResult.stderr)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("another market-images run is writing to"), second.stderr)
        XCTAssertEqual(try report(firstResult).written.count, Self.photos.count)
        let recorded = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifest)))
        XCTAssertEqual(recorded.outputs.count, Self.photos.count)
        XCTAssertEqual(try checkNothingPartial(output, records: "manifest.json", trial: "race").count, Self.photos.count)
    }

    /// Images written in full under `folder` (not the temporary files they are written as).
    private static func finishedOutputs(in folder: String) -> Int {
        (FileManager.default.subpaths(atPath: folder) ?? []).filter { $0.hasSuffix(".jpg") && !$0.contains(".market-images-tmp-") }.count
    }

    private func inputChecksums() throws -> [String: String] {
        try Dictionary(uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: input).map {
            ($0, Fingerprint.hex(String(decoding: try Data(contentsOf: URL(fileURLWithPath: input + "/" + $0)).base64EncodedData(), as: UTF8.self)))
        })
    }

    /// A full disk stops the run with one error (not one per photo), keeps what was finished, and a
    /// rerun with space completes the rest.
    func testFullDiskStopsTheRunCleanlyAndARerunFinishes() throws {
        let out = try mountedFolder(size: "400k")
        let before = try inputChecksums()
        let result = try CommandLineTool.run(["prepare", input, "--out", out, "--json", "--jobs", "1"])
        XCTAssertEqual(result.status, 1)
        let stopped = try XCTUnwrap(try report(result).stopped, result.stderr)
        XCTAssertTrue(stopped.contains("No space left on device; free some space or choose another --out"), stopped)
        XCTAssertEqual(result.stderr.components(separatedBy: "error: ").count - 1, 1, "one error: \(result.stderr)")
        let done = try checkNothingPartial(out, records: "manifest.json", trial: "full disk")
        XCTAssertFalse(done.isEmpty, "photos finished before the disk filled are kept")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains(".market-images-tmp-") }
        XCTAssertEqual(leftovers, [])
        XCTAssertEqual(try inputChecksums(), before, "inputs untouched")

        let remount = Process()
        remount.executableURL = URL(fileURLWithPath: "/bin/mount")
        remount.arguments = ["-o", "remount,size=20m", out]
        try remount.run()
        remount.waitUntilExit()
        let rerun = try report(CommandLineTool.run(["prepare", input, "--out", out, "--json"]))
        XCTAssertNil(rerun.stopped)
        XCTAssertEqual(Set(rerun.upToDate.map(\.source)), done)
        XCTAssertEqual(rerun.written.count + rerun.upToDate.count, Self.photos.count)
    }

    func testReadOnlyOutputFolderIsAClearErrorBeforeAnyWork() throws {
        let out = try mountedFolder(size: "1m", readOnly: true)
        let result = try CommandLineTool.run(["prepare", input, "--out", out + "/ready"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("Read-only file system"), result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1,
                       "one error for the folder, not one per photo: \(result.stderr)")
    }
}

import Foundation
import XCTest

/// What a run left in an output folder, however it ended (killed, stopped by a full disk, refused):
/// every visible file is a record that parses or an image that decodes completely, and the records
/// store their sources relative to the folder. Returns the sources the records say are done: in the
/// document (`records`: manifest.json or thumbs.json), or in the journal a run that did not finish
/// leaves for the next one (a torn last line there is allowed and ignored). `scratch` is a folder for
/// the read-backs.
public func finishedSources(in folder: String, records: String, scratch: String, trial: String,
                            file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
    guard FileManager.default.fileExists(atPath: folder) else { return [] }
    var recorded: Set<String> = []
    let kind = records == "manifest.json" ? "output" : "thumbnails"
    let journal = FileManager.default.contents(atPath: folder + "/.market-images-journal") ?? Data()
    for entry in journal.split(separator: UInt8(ascii: "\n")) {
        let entry = (try? JSONSerialization.jsonObject(with: Data(entry))) as? [String: [String: [String: Any]]]
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
            XCTAssertNotNil(json, "\(trial): \(name) is not valid JSON", file: file, line: line)
            if name == records {
                let key = records == "manifest.json" ? "outputs" : "sources"
                for entry in json?[key] as? [[String: Any]] ?? [] {
                    let source = entry["source"] as? String ?? ""
                    XCTAssertFalse(source.hasPrefix("/"), "\(trial): \(source) is stored absolute", file: file, line: line)
                    recorded.insert(URL(fileURLWithPath: source, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path)
                }
            }
        } else {
            XCTAssertNoThrow(try readBack(data, in: scratch, name: "check"), "\(trial): \(name) is partial or corrupt", file: file, line: line)
        }
    }
    return recorded
}

/// How far this process's resident memory rose while `body` ran, in bytes: the kernel's peak is reset
/// first (`/proc/self/clear_refs`), so what the process held before, or peaked at in earlier tests,
/// does not count. Memory libvips and the allocator kept from earlier work is reused without showing,
/// a few tens of MB: this bounds a blow-up, not a process's whole footprint. Nil where it cannot be
/// measured (not Linux).
public func peakMemoryGrowth<T>(_ body: () throws -> T) rethrows -> (result: T, growth: Int?) {
    let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    let before = memoryStatus("VmRSS")
    let result = try body()
    guard reset, let before, let peak = memoryStatus("VmHWM") else { return (result, nil) }
    return (result, peak - before)
}

/// A field of /proc/self/status in bytes.
private func memoryStatus(_ field: String) -> Int? {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

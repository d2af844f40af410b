import Foundation

/// A JSON file kept in the output folder (the manifest, the thumbnail index): read leniently — a
/// missing or damaged file means "redo everything", never a crash — and written atomically, and only
/// when its bytes change, so an unchanged rerun leaves the folder untouched for tools that watch it.
///
/// Source paths are stored relative to the document's folder (`../photos/sku/a.jpg`), so a folder of
/// photos and its outputs can move together, and no absolute path (a user's home folder) leaves with
/// the outputs; in memory they are absolute.
protocol JSONDocument: Codable {
    static var fileName: String { get }
    /// A copy with every source path passed through `transform`.
    func mappingSources(_ transform: (String) -> String) -> Self
}

extension JSONDocument {
    static func load(from folder: String) -> Self? {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        guard let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONDecoder().decode(Self.self, from: data))?.mappingSources { stored in
            URL(fileURLWithPath: stored, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
        }
    }

    func save(to folder: String) throws(ImagePipelineError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(mappingSources { Self.relative($0, to: folder) }) } catch { throw .processingFailed(detail: "\(Self.fileName): \(error)") }
        let path = (folder as NSString).appendingPathComponent(Self.fileName)
        if let existing = FileManager.default.contents(atPath: path), existing == data { return }
        try AtomicFile.write(data, to: Self.fileName, in: folder)
    }
}

extension JSONDocument {
    /// `path` relative to `folder`, both made absolute first.
    static func relative(_ path: String, to folder: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: folder, isDirectory: true).standardizedFileURL.pathComponents
        let shared = zip(target, base).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: base.count - shared) + target.dropFirst(shared)).joined(separator: "/")
    }
}

import Foundation

/// A JSON file kept in the output folder (the manifest, the thumbnail index): read leniently — a
/// missing or damaged file means "redo everything", never a crash — and written atomically, and only
/// when its bytes change, so an unchanged rerun leaves the folder untouched for tools that watch it.
protocol JSONDocument: Codable {
    static var fileName: String { get }
}

extension JSONDocument {
    static func load(from folder: String) -> Self? {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Self.self, from: data)
    }

    func save(to folder: String) throws(ImagePipelineError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .processingFailed(detail: "\(Self.fileName): \(error)") }
        let path = (folder as NSString).appendingPathComponent(Self.fileName)
        if let existing = FileManager.default.contents(atPath: path), existing == data { return }
        try AtomicFile.write(data, to: Self.fileName, in: folder)
    }
}

import Foundation

/// The records of a run in progress, one JSON line per finished photo appended to
/// `.market-images-journal` in the output folder.
///
/// Rewriting the whole manifest after every photo made a run quadratic in the folder's size; an
/// append is constant. The journal is folded into `manifest.json` and `thumbs.json` at the end of the
/// run and removed; a run killed before that leaves it behind, and the next run replays it, so every
/// photo finished before the kill counts as done. A torn last line (killed mid-append) is skipped:
/// that photo is simply made again.
final class RecordJournal {
    static let fileName = ".market-images-journal"

    enum Entry: Codable {
        case output(Manifest.Output)
        case thumbnails(ThumbnailIndex.Entry)
        case failure(source: String, error: String, kind: String?)
    }

    private let path: String
    private var descriptor: Int32 = -1

    init(folder: String) {
        path = (folder as NSString).appendingPathComponent(Self.fileName)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// What a killed run recorded, in order.
    func replay() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(Entry.self, from: Data($0)) }
    }

    /// Appends one entry with a single `write(2)`. The photo's files are already on disk; losing the
    /// line to a power cut only means making that photo again.
    func append(_ entry: Entry) throws(ImagePipelineError) {
        if descriptor < 0 {
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw AtomicFile.failure(path, errno) }
        }
        guard var line = try? JSONEncoder().encode(entry) else { return }
        line.append(UInt8(ascii: "\n"))
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
        guard written == line.count else { throw AtomicFile.failure(path, written < 0 ? errno : ENOSPC) }
    }

    /// Called once the records it holds are saved.
    func remove() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }
}

import Foundation
import ImagePipeline

/// Finished outputs on disk, for a service that answers the same request many times: written
/// atomically, checked on every read (a damaged or truncated file is deleted and reported as a miss,
/// never served), kept under a size limit by evicting the least recently used, and safe for several
/// processes sharing one folder (see `CacheFolder`).
public final class DiskCache: @unchecked Sendable {
    /// One cached output: the bytes and what a response needs to describe them.
    public struct Entry: Sendable, Equatable {
        /// The image's format; nil for an `/info` answer (JSON about the source).
        public var format: OutputFormat?
        public var width: Int
        public var height: Int
        public var data: Data
        /// How the quality was chosen, as the `X-Quality` header says it (`q=71; ssimulacra2=80.4`).
        public var quality: String?

        public init(format: OutputFormat?, width: Int, height: Int, data: Data, quality: String? = nil) {
            self.format = format
            self.width = width
            self.height = height
            self.data = data
            self.quality = quality
        }
    }

    /// The first line of every file: what follows, and its digest.
    private struct Header: Codable {
        var version = 1
        var format: OutputFormat?
        var width: Int
        var height: Int
        var bytes: Int
        var sha256: String
        var quality: String?
    }

    private let files: CacheFolder
    public var folder: String { files.path }
    public var sizeLimit: Int { files.sizeLimit }

    /// Recency comes from `clock`, written as the files' modification time (tests pass their own).
    public init(folder: String, sizeLimit: Int, clock: @escaping @Sendable () -> Date = Date.init) throws(ImagePipelineError) {
        try AtomicFile.makeFolders(URL(fileURLWithPath: folder).standardizedFileURL.path)
        files = try CacheFolder(folder, sizeLimit: sizeLimit, setting: "cache-size", clock: clock)
    }

    /// The cached output for `key`, or nil. A file that fails its check is removed.
    public func load(key: String) -> Entry? {
        guard let contents = files.read(key) else { return nil }
        guard let entry = Self.decode(contents) else {
            files.remove(key)
            return nil
        }
        return entry
    }

    /// Stores `entry` under `key`, then evicts if the folder grew past its limit. Errors (a full or
    /// read-only disk) are the caller's to report; the output itself is still good to send.
    public func store(_ entry: Entry, key: String) throws(ImagePipelineError) {
        let header = Header(format: entry.format, width: entry.width, height: entry.height, bytes: entry.data.count,
                            sha256: CacheFolder.digest(entry.data), quality: entry.quality)
        guard var contents = try? JSONEncoder().encode(header) else { return }
        contents.append(UInt8(ascii: "\n"))
        contents.append(entry.data)
        try files.write(contents, key: key)
    }

    /// Removes the least recently used files until the folder is at 90% of its limit.
    public func evict() { files.evict() }

    /// Files this process has evicted since it started, for metrics.
    public var evictions: Int { files.evictions }

    /// Bytes in the folder now, by a scan: other processes may have added or removed files.
    public var size: Int { files.size }

    private static func decode(_ contents: Data) -> Entry? {
        guard let newline = contents.firstIndex(of: UInt8(ascii: "\n")),
              let header = try? JSONDecoder().decode(Header.self, from: contents[..<newline]), header.version == 1 else { return nil }
        let body = contents[(newline + 1)...]
        guard body.count == header.bytes, CacheFolder.digest(Data(body)) == header.sha256 else { return nil }
        return Entry(format: header.format, width: header.width, height: header.height, data: Data(body), quality: header.quality)
    }
}

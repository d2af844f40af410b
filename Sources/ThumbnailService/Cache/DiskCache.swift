import Crypto
import Foundation
import ImagePipeline

/// Finished outputs on disk, for a service that answers the same request many times: written
/// atomically, checked on every read (a damaged or truncated file is deleted and reported as a miss,
/// never served), kept under a size limit by evicting the least recently used, and safe for several
/// processes sharing one folder: every write is a rename of a complete file, and eviction tolerates
/// files that another process removed first. Recency is the file's modification time, so it survives
/// restarts.
public final class DiskCache: @unchecked Sendable {
    /// One cached output: the bytes and what a response needs to describe them.
    public struct Entry: Sendable, Equatable {
        public var format: OutputFormat
        public var width: Int
        public var height: Int
        public var data: Data

        public init(format: OutputFormat, width: Int, height: Int, data: Data) {
            self.format = format
            self.width = width
            self.height = height
            self.data = data
        }
    }

    /// The first line of every file: what follows, and its digest.
    private struct Header: Codable {
        var version = 1
        var format: OutputFormat
        var width: Int
        var height: Int
        var bytes: Int
        var sha256: String
    }

    public let folder: String
    public let sizeLimit: Int
    /// Recency comes from this clock, written as the files' modification time (tests pass their own).
    private let clock: @Sendable () -> Date
    private let lock = NSLock()
    /// Bytes believed to be in the folder; a full scan corrects it whenever eviction runs.
    private var estimatedSize = 0
    private var evictedCount = 0

    public init(folder: String, sizeLimit: Int, clock: @escaping @Sendable () -> Date = Date.init) throws(ImagePipelineError) {
        self.clock = clock
        guard sizeLimit > 0 else { throw .invalidOption(name: "cache-size", value: String(sizeLimit), allowed: "more than 0 bytes") }
        self.folder = URL(fileURLWithPath: folder).standardizedFileURL.path
        self.sizeLimit = sizeLimit
        try AtomicFile.makeFolders(self.folder)
        AtomicFile.removeLeftovers(in: self.folder, depth: 3)
        estimatedSize = files().reduce(0) { $0 + $1.size }
    }

    /// The cached output for `key`, or nil. A file that fails its check is removed.
    public func load(key: String) -> Entry? {
        let path = self.path(for: key)
        guard let contents = FileManager.default.contents(atPath: path) else { return nil }
        guard let entry = Self.decode(contents) else {
            unlink(path)
            return nil
        }
        // A hit makes the file recent; eviction removes the stalest first.
        touch(path)
        return entry
    }

    /// Stores `entry` under `key`, then evicts if the folder grew past its limit. Errors (a full or
    /// read-only disk) are the caller's to report; the output itself is still good to send.
    public func store(_ entry: Entry, key: String) throws(ImagePipelineError) {
        let header = Header(format: entry.format, width: entry.width, height: entry.height, bytes: entry.data.count,
                            sha256: Self.digest(entry.data))
        guard var contents = try? JSONEncoder().encode(header) else { return }
        contents.append(UInt8(ascii: "\n"))
        contents.append(entry.data)
        let path = self.path(for: key)
        try AtomicFile.makeFolders((path as NSString).deletingLastPathComponent)
        try AtomicFile.write(contents, toPath: path, durability: .atomicOnly)
        touch(path)
        let needsEviction = lock.withLock {
            estimatedSize += contents.count
            return estimatedSize > sizeLimit
        }
        if needsEviction { evict() }
    }

    /// Sets the file's modification time to the clock's now.
    private func touch(_ path: String) {
        let now = clock().timeIntervalSince1970
        let time = timeval(tv_sec: Int(now.rounded(.down)), tv_usec: .init((now - now.rounded(.down)) * 1_000_000))
        _ = [time, time].withUnsafeBufferPointer { utimes(path, $0.baseAddress) }
    }

    /// Removes the least recently used files until the folder is at 90% of its limit, so eviction
    /// runs now and then rather than on every store.
    public func evict() {
        let files = files().sorted { $0.modified < $1.modified }
        var total = files.reduce(0) { $0 + $1.size }
        let target = sizeLimit / 10 * 9
        var evicted = 0
        for file in files where total > target {
            guard unlink(file.path) == 0 || errno == ENOENT else { continue }
            total -= file.size
            evicted += 1
        }
        lock.withLock {
            estimatedSize = total
            evictedCount += evicted
        }
    }

    /// Files this process has evicted since it started, for metrics.
    public var evictions: Int { lock.withLock { evictedCount } }

    /// Bytes in the folder now, by a scan: other processes may have added or removed files.
    public var size: Int { files().reduce(0) { $0 + $1.size } }

    private func path(for key: String) -> String {
        let hash = Self.digest(Data(key.utf8))
        let (first, second) = (hash.prefix(2), hash.dropFirst(2).prefix(2))
        return "\(folder)/\(first)/\(second)/\(hash)"
    }

    private func files() -> [(path: String, size: Int, modified: Double)] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [(String, Int, Double)] = []
        for case let relative as String in enumerator {
            let path = folder + "/" + relative
            guard !(relative as NSString).lastPathComponent.hasPrefix("."),
                  let status = try? FileStatus.of(path).get(), status.isRegularFile else { continue }
            files.append((path, status.size, Double(status.modifiedSeconds) + Double(status.modifiedNanoseconds) / 1e9))
        }
        return files
    }

    private static func decode(_ contents: Data) -> Entry? {
        guard let newline = contents.firstIndex(of: UInt8(ascii: "\n")),
              let header = try? JSONDecoder().decode(Header.self, from: contents[..<newline]), header.version == 1 else { return nil }
        let body = contents[(newline + 1)...]
        guard body.count == header.bytes, digest(Data(body)) == header.sha256 else { return nil }
        return Entry(format: header.format, width: header.width, height: header.height, data: Data(body))
    }

    private static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

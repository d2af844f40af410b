import Crypto
import Foundation
import ImagePipeline

/// A folder of cache files shared by several processes: one file per key, sharded as `ab/cd/<hash>`,
/// each written by renaming a complete file, kept under a size limit by evicting the least recently
/// used. Recency is the file's modification time, so it survives restarts; eviction tolerates files
/// another process removed first. Only the shard folders count, so another cache may live in a
/// subfolder (the source cache in `sources/`). The owner creates the folder (or lets writes fail).
final class CacheFolder: @unchecked Sendable {
    let path: String
    let sizeLimit: Int
    /// Recency comes from this clock, written as the files' modification time (tests pass their own).
    let clock: @Sendable () -> Date
    private let lock = NSLock()
    /// Bytes believed to be in the folder; a full scan corrects it whenever eviction runs.
    private var estimatedSize = 0
    private var evictedCount = 0

    init(_ folder: String, sizeLimit: Int, setting: String, clock: @escaping @Sendable () -> Date) throws(ImagePipelineError) {
        guard sizeLimit > 0 else { throw .invalidOption(name: setting, value: String(sizeLimit), allowed: "more than 0 bytes") }
        path = URL(fileURLWithPath: folder).standardizedFileURL.path
        self.sizeLimit = sizeLimit
        self.clock = clock
        AtomicFile.removeLeftovers(in: path, depth: 3, olderThan: 600)
        estimatedSize = files().reduce(0) { $0 + $1.size }
    }

    /// The file's contents, made recent; nil when there is none.
    func read(_ key: String) -> Data? {
        let file = self.file(for: key)
        guard let contents = FileManager.default.contents(atPath: file) else { return nil }
        touch(file)
        return contents
    }

    /// Up to `limit` bytes from the start of the file (a header), without making it recent.
    func readPrefix(_ key: String, limit: Int) -> Data? {
        let descriptor = open(file(for: key), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = Data(count: limit)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, limit, 0) }
        return count > 0 ? buffer.prefix(count) : nil
    }

    /// Replaces the file with `contents`, then evicts if the folder grew past its limit.
    func write(_ contents: Data, key: String) throws(ImagePipelineError) {
        let file = self.file(for: key)
        try AtomicFile.makeFolders((file as NSString).deletingLastPathComponent)
        try AtomicFile.write(contents, toPath: file, durability: .atomicOnly)
        touch(file)
        let needsEviction = lock.withLock {
            estimatedSize += contents.count
            return estimatedSize > sizeLimit
        }
        if needsEviction { evict() }
    }

    func remove(_ key: String) { unlink(file(for: key)) }

    /// Removes the least recently used files until the folder is at 90% of its limit, so eviction
    /// runs now and then rather than on every write.
    func evict() {
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
    var evictions: Int { lock.withLock { evictedCount } }

    /// Bytes in the folder now, by a scan: other processes may have added or removed files.
    var size: Int { files().reduce(0) { $0 + $1.size } }

    static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    private func file(for key: String) -> String {
        let hash = Self.digest(Data(key.utf8))
        return "\(path)/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)"
    }

    /// Sets the file's modification time to the clock's now.
    private func touch(_ file: String) {
        let now = clock().timeIntervalSince1970
        let time = timeval(tv_sec: Int(now.rounded(.down)), tv_usec: .init((now - now.rounded(.down)) * 1_000_000))
        _ = [time, time].withUnsafeBufferPointer { utimes(file, $0.baseAddress) }
    }

    /// The cache files: those in `ab/cd/` shard folders, skipping temporary files.
    private func files() -> [(path: String, size: Int, modified: Double)] {
        let manager = FileManager.default
        let isShard = { (name: String) in name.count == 2 && name.allSatisfy(\.isHexDigit) }
        var files: [(String, Int, Double)] = []
        for first in (try? manager.contentsOfDirectory(atPath: path)) ?? [] where isShard(first) {
            for second in (try? manager.contentsOfDirectory(atPath: "\(path)/\(first)")) ?? [] where isShard(second) {
                let shard = "\(path)/\(first)/\(second)"
                for name in (try? manager.contentsOfDirectory(atPath: shard)) ?? [] where !name.hasPrefix(".") {
                    guard let status = try? FileStatus.of("\(shard)/\(name)").get(), status.isRegularFile else { continue }
                    files.append(("\(shard)/\(name)", status.size, Double(status.modifiedSeconds) + Double(status.modifiedNanoseconds) / 1e9))
                }
            }
        }
        return files
    }
}

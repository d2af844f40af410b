import Foundation
import ImagePipeline

/// The outputs served most recently, in memory, in front of the disk cache: a hit costs no file
/// read, no header parse and no checksum. Bounded by bytes; when full, the least recently used
/// tenth goes at once, so eviction's sort is rare.
public final class MemoryCache: @unchecked Sendable {
    public let sizeLimit: Int
    private let lock = NSLock()
    private var entries: [String: (entry: DiskCache.Entry, used: UInt64)] = [:]
    private var size = 0
    private var clock: UInt64 = 0

    public init(sizeLimit: Int) {
        self.sizeLimit = sizeLimit
    }

    public func load(key: String) -> DiskCache.Entry? {
        lock.withLock {
            guard let found = entries[key] else { return nil }
            clock += 1
            entries[key]?.used = clock
            return found.entry
        }
    }

    /// The largest entry a cache of `sizeLimit` bytes keeps: a tenth of it.
    static func entryLimit(_ sizeLimit: Int) -> Int { sizeLimit / 10 }

    /// Keeps `entry` unless it alone would take more than a tenth of the budget.
    public func store(_ entry: DiskCache.Entry, key: String) {
        guard entry.data.count <= Self.entryLimit(sizeLimit) else { return }
        lock.withLock {
            clock += 1
            if let old = entries.updateValue((entry, clock), forKey: key) { size -= old.entry.data.count }
            size += entry.data.count
            guard size > sizeLimit else { return }
            for (key, value) in entries.sorted(by: { $0.value.used < $1.value.used }) where size > sizeLimit * 9 / 10 {
                entries[key] = nil
                size -= value.entry.data.count
            }
        }
    }

    public var byteCount: Int { lock.withLock { size } }
}

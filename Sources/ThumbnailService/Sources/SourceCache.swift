import Foundation
import ImagePipeline

/// Downloaded sources on disk (`<cache>/sources`), by normalised URL: the bytes and what the origin
/// said about them. Each file is one JSON line (the record) and the bytes, so a request whose output
/// is cached reads only the record, never the source. Checked on read (a damaged file is removed and
/// is a miss), evicted least recently used, and shared by every instance using the cache folder.
/// Records this process read or wrote are also kept in memory, so a hit reads no file for its source.
final class SourceCache: Sendable {
    /// What is known about a source without its bytes: enough for an output's ETag and format.
    struct Record: Codable, Sendable, Equatable {
        /// 2 since records keep the source's traits: a version 1 record is a miss (one download again).
        var version = Self.currentVersion
        var url: String
        /// The origin's validators, sent back when revalidating.
        var etag: String?
        var lastModified: String?
        /// When the origin last confirmed these bytes (sent them, or answered 304), seconds since 1970.
        var validated: Double
        var bytes: Int
        /// The bytes' digest: the source's fingerprint in output ETags.
        var sha256: String
        /// Its format, transparency and animation, from its header, for choosing the output's format.
        var traits: SourceTraits
        static let currentVersion = 2
    }

    /// Nil: records in memory only, bytes never kept (a bucket cache's instance has no folder).
    private let files: CacheFolder?
    private let recent = Locked<[String: Record]>([:])
    /// Longest record line read; URLs and validators are far shorter.
    private static let recordLimit = 16_384
    /// Records kept in memory at most (a few hundred bytes each); past it the memory starts over.
    private static let recentLimit = 20_000

    init(folder: String, sizeLimit: Int, clock: @escaping @Sendable () -> Date) throws(ImagePipelineError) {
        // A read-only cache folder is reported once, by the output cache; sources then cost downloads.
        try? AtomicFile.makeFolders(folder)
        files = try CacheFolder(folder, sizeLimit: sizeLimit, setting: "source-cache-size", clock: clock)
    }

    /// Records in memory only: a source's ETag and format known without its origin within
    /// `--source-ttl`, its bytes downloaded again when a render needs them.
    init(memoryOnly: Void) {
        files = nil
    }

    var evictions: Int { files?.evictions ?? 0 }

    /// The record for `url`: from memory, else from the start of its file only.
    func record(for url: String) -> Record? {
        if let record = recent.withLock({ $0[url] }) { return record }
        guard let head = files?.readPrefix(url, limit: Self.recordLimit), let newline = head.firstIndex(of: UInt8(ascii: "\n")),
              let record = try? JSONDecoder().decode(Record.self, from: head[..<newline]), record.version == Record.currentVersion, record.url == url else { return nil }
        remember(record)
        return record
    }

    /// Keeps `record` in memory (not on disk): one read from the file or the bucket, or made fresh.
    func remember(_ record: Record) {
        recent.withLock { recent in
            if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
            recent[record.url] = record
        }
    }

    /// The bytes `record` describes, or nil when the file is gone, damaged (then removed) or since
    /// replaced. Makes the file recent.
    func bytes(of record: Record) -> Data? {
        guard let contents = files?.read(record.url), let newline = contents.firstIndex(of: UInt8(ascii: "\n")),
              let stored = try? JSONDecoder().decode(Record.self, from: contents[..<newline]), stored.url == record.url else { return nil }
        let body = Data(contents[(newline + 1)...])
        guard body.count == stored.bytes, CacheFolder.digest(body) == stored.sha256 else {
            remove(record.url)
            return nil
        }
        return stored.sha256 == record.sha256 ? body : nil
    }

    /// Keeps `bytes` as described by `record`. A cache that cannot be written only costs downloads.
    func store(_ record: Record, bytes: Data) {
        guard let files else {
            remember(record)
            return
        }
        guard var contents = try? JSONEncoder().encode(record) else { return }
        contents.append(UInt8(ascii: "\n"))
        contents.append(bytes)
        do {
            try files.write(contents, key: record.url)
            remember(record)
        } catch {}
    }

    /// Drops the record from memory, so the next lookup reads the file: evicted by another process,
    /// or replaced by a newer version another instance fetched.
    func forget(_ url: String) {
        _ = recent.withLock { $0.removeValue(forKey: url) }
    }

    func remove(_ url: String) {
        forget(url)
        files?.remove(url)
    }

    /// A record for bytes just downloaded: digest and traits read from them once.
    static func record(url: String, bytes: Data, etag: String?, lastModified: String?, now: Date) throws(ImagePipelineError) -> Record {
        let header = try ImageHeader.read(.data(bytes))
        return Record(url: url, etag: etag, lastModified: lastModified, validated: now.timeIntervalSince1970, bytes: bytes.count,
                      sha256: CacheFolder.digest(bytes), traits: SourceTraits(header))
    }
}

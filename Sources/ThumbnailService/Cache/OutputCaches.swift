import Foundation
import ImagePipeline
import Logging

/// Finished outputs by ETag: memory in front of a disk folder or a bucket, each optional. A lookup
/// tries memory, then the folder or the bucket (keeping what it found in memory too), and says
/// where it was found: `hit` (memory or the folder), `remote-hit` (the bucket, which another
/// instance may have filled). A full disk or a read-only cache folder is one warning in the log, and
/// the images are served all the same; a bucket's failures are `BucketCache`'s to count and tell.
struct OutputCaches: Sendable {
    let disk: DiskCache?
    let memory: MemoryCache?
    let bucket: BucketCache?
    let logger: Logger
    private let warned = Locked(false)

    init(disk: DiskCache?, memory: MemoryCache?, bucket: BucketCache? = nil, logger: Logger) {
        (self.disk, self.memory, self.bucket, self.logger) = (disk, memory, bucket, logger)
    }

    /// The output and where it was found (`hit`, `remote-hit`), or nil.
    func load(_ etag: String) async -> (entry: DiskCache.Entry, outcome: String)? {
        if let entry = memory?.load(key: etag) { return (entry, "hit") }
        if let entry = disk?.load(key: etag) {
            memory?.store(entry, key: etag)
            return (entry, "hit")
        }
        guard let entry = await bucket?.load(etag) else { return nil }
        memory?.store(entry, key: etag)
        return (entry, "remote-hit")
    }

    func store(_ image: EncodedImage, etag: String) async {
        await store(DiskCache.Entry(format: image.format, width: image.width, height: image.height, data: image.data,
                                    quality: HTTPAnswer.qualityHeader(image)), etag: etag)
    }

    /// Kept in memory and the folder, and written to the bucket before the answer is sent (within
    /// the bucket's deadline), so an instance asked next finds it.
    func store(_ entry: DiskCache.Entry, etag: String) async {
        guard disk != nil || bucket != nil else { return }
        memory?.store(entry, key: etag)
        await bucket?.store(entry, etag: etag)
        guard let disk else { return }
        do {
            try disk.store(entry, key: etag)
        } catch {
            let first = warned.withLock { warned in defer { warned = true }; return !warned }
            if first { logger.warning("the cache cannot be written (\(error)); serving without it") }
        }
    }
}

import Foundation
import ImagePipeline
import Logging

/// Finished outputs by ETag: memory in front of disk, either optional. A lookup tries memory, then
/// disk (keeping what it found in memory too). A full disk or a read-only cache folder is one
/// warning in the log, and the images are served all the same.
struct OutputCaches: Sendable {
    let disk: DiskCache?
    let memory: MemoryCache?
    let logger: Logger
    private let warned = Locked(false)

    init(disk: DiskCache?, memory: MemoryCache?, logger: Logger) {
        (self.disk, self.memory, self.logger) = (disk, memory, logger)
    }

    func load(_ etag: String) -> DiskCache.Entry? {
        if let entry = memory?.load(key: etag) { return entry }
        guard let entry = disk?.load(key: etag) else { return nil }
        memory?.store(entry, key: etag)
        return entry
    }

    func store(_ image: EncodedImage, etag: String) {
        store(DiskCache.Entry(format: image.format, width: image.width, height: image.height, data: image.data,
                              quality: HTTPAnswer.qualityHeader(image)), etag: etag)
    }

    func store(_ entry: DiskCache.Entry, etag: String) {
        guard let disk else { return }
        memory?.store(entry, key: etag)
        do {
            try disk.store(entry, key: etag)
        } catch {
            let first = warned.withLock { warned in defer { warned = true }; return !warned }
            if first { logger.warning("the cache cannot be written (\(error)); serving without it") }
        }
    }
}

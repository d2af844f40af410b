import Foundation
import ImagePipeline
import Logging

/// Finished outputs in a bucket (`--cache s3://bucket/prefix`), shared by every instance pointed
/// at it: what one instance rendered, the others (and one started later) serve without rendering.
/// Keyed by the output's ETag, which is made of the source, the options and the settings that
/// change bytes, never of the URL's signature: rotating keys keeps every object. Each object is
/// written whole (one PUT) with its content type, the service's ETag and its SHA-256; a read whose
/// body fails that checksum, or names another ETag, is a miss, never an answer. S3 evicts nothing
/// by itself: a lifecycle rule on the prefix does (README, "Running it at scale").
///
/// The store failing (down, slow, 5xx, 403) never fails a request: each read and write has its own
/// deadline (`--cache-timeout`), a failure is counted (`market_images_cache_store_total`) and the
/// request is answered as without a cache; `StoreHealth` logs one warning per outage and keeps
/// requests from waiting on a store that does not answer. An object that fails its check is the
/// object's fault, not the store's: a line of its own, and no outage.
struct BucketCache: Sendable {
    let store: ObjectStore
    let bucket: String
    /// Keys are `<prefix><sha256 of the ETag>`; the prefix ends with `/` when it is not empty.
    let prefix: String
    let timeout: Duration
    let health: StoreHealth
    let metrics: ServiceMetrics
    let logger: Logger
    /// Larger outputs are neither written nor read back: a read without a length would otherwise be
    /// buffered up to any size. See `maxObjectBytes(memoryCache:)`.
    let maxObjectBytes: Int

    /// The largest output the memory cache keeps (a tenth of it; of its default at least, so a small
    /// or no memory cache does not shut out ordinary outputs): one past it would be fetched from the
    /// bucket on every request, at about the cost of rendering it again. At the default 64 MB, 6.7 MB.
    static func maxObjectBytes(memoryCache: Int) -> Int {
        MemoryCache.entryLimit(max(memoryCache, ServiceConfiguration().memoryCache))
    }

    /// `s3://bucket/prefix` as a bucket and a key prefix, or nil when it is not one.
    static func location(_ text: String) -> (bucket: String, prefix: String)? {
        guard text.hasPrefix(ObjectKey.scheme) else { return nil }
        let rest = text.dropFirst(ObjectKey.scheme.count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        guard ObjectKey(bucket: bucket, key: prefix + "x") != nil else { return nil }
        return (bucket, prefix)
    }

    /// `s3://bucket/prefix/`, for the start-up log.
    var location: String { ObjectKey.scheme + bucket + "/" + prefix }

    func key(for etag: String) -> ObjectKey {
        ObjectKey(bucket: bucket, key: prefix + SigV4Signer.hexSHA256(Data(etag.utf8)))!
    }

    /// The output stored for `etag`, or nil: none, one that failed its check, or a store that failed.
    func load(_ etag: String) async -> DiskCache.Entry? {
        await read(key(for: etag)) { Self.entry($0, etag: etag) }
    }

    /// Writes `entry` for `etag`, within the deadline; a failure is counted and otherwise ignored.
    func store(_ entry: DiskCache.Entry, etag: String) async {
        var headers = [(name: "content-type", value: entry.format?.mimeType ?? "application/json"),
                       (name: "x-amz-meta-etag", value: Self.bareETag(etag)),
                       (name: "x-amz-meta-format", value: entry.format?.rawValue ?? "info"),
                       (name: "x-amz-meta-size", value: "\(entry.width)x\(entry.height)")]
        if let quality = entry.quality { headers.append((name: "x-amz-meta-quality", value: quality)) }
        await write(entry.data, headers: headers, to: key(for: etag))
    }

    /// A remote source's record (its digest, validators and traits: what an output's ETag and a
    /// revalidation need), shared so that an instance that never fetched the source serves the
    /// others' outputs of it without downloading it. Keyed by the URL's SHA-256 under `sources/`.
    func record(for url: String) async -> SourceCache.Record? {
        await read(recordKey(url)) { response in
            guard Self.isWhole(response), let record = try? JSONDecoder().decode(SourceCache.Record.self, from: response.body),
                  record.version == SourceCache.Record.currentVersion, record.url == url else { return nil }
            return record
        }
    }

    func store(_ record: SourceCache.Record) async {
        guard let body = try? JSONEncoder().encode(record) else { return }
        await write(body, headers: [(name: "content-type", value: "application/json")], to: recordKey(record.url))
    }

    private func recordKey(_ url: String) -> ObjectKey {
        ObjectKey(bucket: bucket, key: prefix + "sources/" + SigV4Signer.hexSHA256(Data(url.utf8)))!
    }

    /// An object read within the deadline and made into a value by `decode` (nil: torn), or nil.
    private func read<Value>(_ key: ObjectKey, _ decode: (ObjectStoreResponse) -> Value?) async -> Value? {
        guard health.mayTry() else {
            metrics.cacheStore("read", "skipped")
            return nil
        }
        let response: ObjectStoreResponse?
        do {
            response = try await store.get(key, maxBytes: maxObjectBytes, within: timeout)
        } catch .tooLarge {
            // Written by an instance with a larger limit: the store answered, the output is rendered.
            health.succeeded()
            metrics.cacheStore("read", "miss")
            return nil
        } catch {
            metrics.cacheStore("read", "failed")
            health.failed("a read: \(error)")
            return nil
        }
        health.succeeded()
        guard let response else {
            metrics.cacheStore("read", "miss")
            return nil
        }
        guard let value = decode(response) else {
            metrics.cacheStore("read", "torn")
            logger.warning("the cache bucket's object \(key.name) failed its check (damaged, or not written by this service): not used, and replaced")
            return nil
        }
        metrics.cacheStore("read", "hit")
        return value
    }

    /// One PUT of `body` with its SHA-256 as metadata, within the deadline; a failure is counted and
    /// otherwise ignored.
    private func write(_ body: Data, headers: [(name: String, value: String)], to key: ObjectKey) async {
        guard body.count <= maxObjectBytes else { return }
        guard health.mayTry() else {
            metrics.cacheStore("write", "skipped")
            return
        }
        do {
            try await store.put(key, body: body, headers: headers + [(name: "x-amz-meta-sha256", value: SigV4Signer.hexSHA256(body))], within: timeout)
        } catch {
            metrics.cacheStore("write", "failed")
            health.failed("a write: \(error)")
            return
        }
        health.succeeded()
        metrics.cacheStore("write", "stored")
    }

    /// Whether an object's body is as written: its SHA-256 the one its metadata carries.
    private static func isWhole(_ response: ObjectStoreResponse) -> Bool {
        response.status == 200 && response.headers["x-amz-meta-sha256"] == SigV4Signer.hexSHA256(response.body)
    }

    /// The entry an object holds, when its body is whole (its length and SHA-256 as written) and
    /// it was written for this ETag.
    static func entry(_ response: ObjectStoreResponse, etag: String) -> DiskCache.Entry? {
        let meta = { (name: String) in response.headers["x-amz-meta-" + name] }
        guard isWhole(response), meta("etag") == bareETag(etag),
              let formatName = meta("format"), let size = meta("size")?.split(separator: "x").compactMap({ Int($0) }), size.count == 2 else { return nil }
        let format = OutputFormat(rawValue: formatName)
        guard format != nil || formatName == "info" else { return nil }
        return DiskCache.Entry(format: format, width: size[0], height: size[1], data: response.body, quality: meta("quality"))
    }

    /// The ETag without its quotes, as metadata holds it.
    private static func bareETag(_ etag: String) -> String { etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
}

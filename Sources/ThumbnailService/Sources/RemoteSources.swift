import Foundation
import Hummingbird
import ImagePipeline

/// Remote sources, `http(s)` through `OriginClient` and `s3://` through `S3Origin` (each decides
/// what may be fetched at all); the format is judged by the bytes, never by `Content-Type`.
///
/// With a cache folder, a source costs one download, then none: its record (digest, validators,
/// transparency) answers for it within `--source-ttl`, so an output's ETag, a 304 and a cache hit
/// need no origin at all; after that it is revalidated with a conditional GET, and while the origin
/// fails, the copy is served for `--source-stale-if-error` more. With a bucket cache, the records
/// are in the bucket too (`shared`), so an instance serves outputs of sources another instance
/// fetched without downloading them, and revalidates with their validators; only a render
/// downloads the bytes. Concurrent requests for one source share one read of the bucket's record,
/// one download or revalidation (whatever sizes they ask for), and at most `--max-downloads`
/// sources are held in memory at once, at most `--max-downloads-per-origin` of them downloading from
/// one origin: more are answered 503 at once.
struct RemoteSources: SourceKind {
    let origin: any SourceOrigin
    let slots: SourceSlots
    let originSlots: OriginSlots
    let cache: SourceCache?
    /// The records every instance on the bucket cache shares.
    let shared: BucketCache?
    let freshness: SourceFreshness
    let clock: @Sendable () -> Date
    let metrics: ServiceMetrics
    private let flights = SingleFlight<RemoteSource>()
    private let inMemory = SourcesInMemory()

    /// `slots`: those of the service's other remote kinds, so `--max-downloads` bounds them all together.
    init(origin: any SourceOrigin, slots: SourceSlots, maxDownloadsPerOrigin: Int, cache: SourceCache?, shared: BucketCache?,
         freshness: SourceFreshness, clock: @escaping @Sendable () -> Date, metrics: ServiceMetrics) {
        self.origin = origin
        self.slots = slots
        originSlots = OriginSlots(limit: maxDownloadsPerOrigin)
        (self.cache, self.shared, self.freshness, self.clock, self.metrics) = (cache, shared, freshness, clock, metrics)
    }

    func claims(_ name: String) -> Bool { origin.claims(name) }

    /// What is known about the source before any work: from a fresh record, from the origin's 304, or
    /// from a download (whose bytes come along), or the failure with the status it deserves (404 not
    /// allowed or not found, 413 too large, 415 not an image, 502 origin error, 503 too many sources
    /// held, 504 origin timeout).
    func resolve(_ name: String) async throws(ServiceFailure) -> any ResolvedSource {
        let source = try await lookup(name)
        metrics.source(source.outcome.rawValue)
        return source
    }

    private func lookup(_ name: String) async throws(ServiceFailure) -> RemoteSource {
        let url = try origin.allowed(name)
        if let record = cache?.record(for: url.text), freshness.isFresh(record, now: clock()) {
            return RemoteSource(url: url, record: record, outcome: .fresh, sources: self)
        }
        return try await refresh(url)
    }

    /// The source's bytes for rendering, held in a slot: those downloaded with the lookup, else the
    /// cached copy, else (evicted since) a new download.
    func bytes(of source: RemoteSource) async throws(ServiceFailure) -> HeldSource {
        if let held = source.held ?? inMemory[source.record.sha256] { return held }
        do {
            let held = try HeldSource(slots: slots)
            if let data = cache?.bytes(of: source.record) {
                held.data = data
                inMemory[source.record.sha256] = held
                return held
            }
        }
        // The slot is given back above: the download below takes its own, and asks for the bytes
        // whole (a 304 would leave nothing to render).
        cache?.forget(source.url.text)
        let fetched = try await refresh(source.url, whole: true)
        // Bytes other than the record's (the source replaced, or an origin that sends different
        // bytes each time) are what the origin has now: rendered, and their record, stored by the
        // download, answers the next request.
        guard let bytes = fetched.held else { throw Self.changedMeanwhile }
        return bytes
    }

    /// One download or revalidation per source at a time, however many requests need it; `whole`:
    /// a download, for the bytes.
    private func refresh(_ url: SourceURL, whole: Bool = false) async throws(ServiceFailure) -> RemoteSource {
        do {
            return try await flights.run((whole ? "whole " : "") + url.text) { [self] () throws(ServiceFailure) -> RemoteSource in
                var cached = cache?.record(for: url.text)
                if !whole {
                    if cached.map({ !freshness.isFresh($0, now: clock()) }) ?? true { cached = await newer(than: cached, url) }
                    if let cached, freshness.isFresh(cached, now: clock()) { return RemoteSource(url: url, record: cached, outcome: .fresh, sources: self) }
                }
                return try await fetch(url, cached: cached, whole: whole)
            }
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            throw ServiceFailure(.cancelled)
        }
    }

    /// Another instance's record from the bucket when it is newer than `local`, or the only one:
    /// kept, and fresh or not, its validators are what a revalidation sends.
    private func newer(than local: SourceCache.Record?, _ url: SourceURL) async -> SourceCache.Record? {
        guard let shared, let record = await shared.record(for: url.text), record.validated > local?.validated ?? -.infinity else { return local }
        cache?.remember(record)
        return record
    }

    /// A conditional GET when there is a record, else (or `whole`) a plain one. A 304 keeps the
    /// record (made fresh) and the copy, if one is kept; a 404 forgets them; an origin error or
    /// timeout serves them while they are within stale-if-error. A new or revalidated record is
    /// shared with the other instances.
    private func fetch(_ url: SourceURL, cached: SourceCache.Record?, whole: Bool) async throws(ServiceFailure) -> RemoteSource {
        let downloading = try originSlots.take(for: url)
        defer { downloading.giveBack() }
        let held = try HeldSource(slots: slots)
        let fetched: OriginClient.Fetched
        // Every read of the origin is timed (imgproxy's `downloading` span): a lookup's, and a render's
        // read of bytes the cache no longer holds, which a lookup's record had answered.
        let started = ContinuousClock.now
        defer { metrics.span("downloading", ContinuousClock.now - started) }
        do {
            fetched = try await origin.download(url, validators: whole ? nil : cached)
        } catch {
            if error.status == .notFound { cache?.remove(url.text) }
            let transient = [.badGateway, .gatewayTimeout].contains(error.status)
            if transient, let cached, freshness.isUsableOnError(cached, now: clock()) {
                return RemoteSource(url: url, record: cached, outcome: .stale, sources: self)
            }
            throw error
        }
        switch fetched {
        case .body(let data, let etag, let lastModified):
            let record: SourceCache.Record
            do {
                record = try SourceCache.record(url: url.text, bytes: data, etag: etag, lastModified: lastModified, now: clock())
            } catch {
                throw ServiceFailure(error)
            }
            metrics.sourceBytes(data.count, kind: origin.kind)
            cache?.store(record, bytes: data)
            await shared?.store(record)
            held.data = data
            inMemory[record.sha256] = held
            return RemoteSource(url: url, record: record, held: held, outcome: .downloaded, sources: self)
        case .notModified:
            guard var record = cached else { throw Self.changedMeanwhile }
            record.validated = clock().timeIntervalSince1970
            await shared?.store(record)
            // The kept copy comes along; without one (none kept, or evicted) the record alone
            // answers, and a render downloads the bytes.
            guard let data = cache?.bytes(of: record) else {
                cache?.remember(record)
                return RemoteSource(url: url, record: record, outcome: .revalidated, sources: self)
            }
            cache?.store(record, bytes: data)
            held.data = data
            return RemoteSource(url: url, record: record, held: held, outcome: .revalidated, sources: self)
        }
    }

    /// A copy that vanished between two steps (evicted, or replaced by another instance): the
    /// client may simply ask again.
    private static let changedMeanwhile = ServiceFailure.unavailable("source-changed", "the source changed while it was read; try again")

}

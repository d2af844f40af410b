import AsyncHTTPClient
import Foundation
import Hummingbird
import ImagePipeline
import NIOCore

/// `http(s)` sources: fetched only under an `--allow-source` prefix, never from a loopback, private
/// or link-local address unless `--allow-private-sources`. The host is resolved here and the
/// connection pinned to the address that was checked, so a name that resolves elsewhere the second
/// time (DNS rebinding) cannot reach an internal address. Redirects are followed by hand, at most
/// three, each target checked the same way. The download stops as soon as it passes
/// `--max-source-bytes`; the format is judged by the bytes, never by `Content-Type`.
///
/// With a cache folder, a source costs one download, then none: its record (digest, validators,
/// transparency) answers for it within `--source-ttl`, so an output's ETag, a 304 and a cache hit
/// need no origin at all; after that it is revalidated with a conditional GET, and while the origin
/// fails, the copy is served for `--source-stale-if-error` more. Concurrent requests for one source
/// share one download or revalidation (whatever sizes they ask for), and at most `--max-downloads`
/// sources are held in memory at once: more are answered 503 at once.
struct RemoteSources: Sendable {
    let prefixes: [SourceURL]
    let allowInternal: Bool
    let maxBytes: Int
    let timeout: TimeAmount
    let slots: SourceSlots
    let cache: SourceCache?
    let freshness: SourceFreshness
    let clock: @Sendable () -> Date
    private let flights = SingleFlight<RemoteSource>()
    private let inMemory = SourcesInMemory()
    static let redirectLimit = 3

    init(prefixes: [SourceURL], allowInternal: Bool, maxBytes: Int, timeout: TimeAmount, maxDownloads: Int,
         cache: SourceCache?, freshness: SourceFreshness, clock: @escaping @Sendable () -> Date) {
        (self.prefixes, self.allowInternal, self.maxBytes, self.timeout) = (prefixes, allowInternal, maxBytes, timeout)
        slots = SourceSlots(limit: maxDownloads)
        (self.cache, self.freshness, self.clock) = (cache, freshness, clock)
    }

    func isRemote(_ source: String) -> Bool {
        source.hasPrefix("http://") || source.hasPrefix("https://")
    }

    /// What is known about the source before any work: from a fresh record, from the origin's 304, or
    /// from a download (whose bytes come along), or the failure with the status it deserves (404 not
    /// allowed or not found, 413 too large, 415 not an image, 502 origin error, 503 too many sources
    /// held, 504 origin timeout).
    func lookup(_ source: String) async throws(ServiceFailure) -> RemoteSource {
        let url = try allowed(source)
        if let record = cache?.record(for: url.text), freshness.isFresh(record, now: clock()) {
            return RemoteSource(url: url, record: record, outcome: .fresh)
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
        // The slot is given back above: the download below takes its own.
        cache?.forget(source.url.text)
        let fetched = try await refresh(source.url)
        guard let bytes = fetched.held, fetched.record.sha256 == source.record.sha256 else { throw Self.changedMeanwhile }
        return bytes
    }

    /// One download or revalidation per source at a time, however many requests need it.
    private func refresh(_ url: SourceURL) async throws(ServiceFailure) -> RemoteSource {
        do {
            return try await flights.run(url.text) { [self] () throws(ServiceFailure) -> RemoteSource in
                let cached = cache?.record(for: url.text)
                if let cached, freshness.isFresh(cached, now: clock()) { return RemoteSource(url: url, record: cached, outcome: .fresh) }
                return try await fetch(url, cached: cached)
            }
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            throw ServiceFailure(status: .serviceUnavailable, error: "cancelled", detail: "the request went away")
        }
    }

    /// A conditional GET when there is a copy, else a plain one. A 304 keeps the copy (made fresh);
    /// a 404 forgets it; an origin error or timeout serves it while it is within stale-if-error.
    private func fetch(_ url: SourceURL, cached: SourceCache.Record?) async throws(ServiceFailure) -> RemoteSource {
        let held = try HeldSource(slots: slots)
        let fetched: Fetched
        do {
            fetched = try await download(url, validators: cached)
        } catch {
            if error.status == .notFound { cache?.remove(url.text) }
            let transient = [.badGateway, .gatewayTimeout].contains(error.status)
            if transient, let cached, freshness.isUsableOnError(cached, now: clock()) {
                return RemoteSource(url: url, record: cached, outcome: .stale)
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
            cache?.store(record, bytes: data)
            held.data = data
            inMemory[record.sha256] = held
            return RemoteSource(url: url, record: record, held: held, outcome: .downloaded)
        case .notModified:
            guard var record = cached, let data = cache?.bytes(of: record) else { throw Self.changedMeanwhile }
            record.validated = clock().timeIntervalSince1970
            cache?.store(record, bytes: data)
            held.data = data
            return RemoteSource(url: url, record: record, held: held, outcome: .revalidated)
        }
    }

    /// A copy that vanished between two steps (evicted, or replaced by another instance): the
    /// client may simply ask again.
    private static let changedMeanwhile: ServiceFailure = {
        var failure = ServiceFailure(status: .serviceUnavailable, error: "source-changed", detail: "the source changed while it was read; try again")
        failure.retryAfter = 1
        return failure
    }()

    /// Follows redirects by hand, each target checked as the source was; each hop's host resolved
    /// once, here, and the connection pinned to the address checked.
    private func download(_ source: SourceURL, validators: SourceCache.Record?) async throws(ServiceFailure) -> Fetched {
        var url = source
        for _ in 0...Self.redirectLimit {
            let address = try self.address(of: url)
            let host = url.host
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.dnsOverride = [host: address]
            configuration.timeout = .init(connect: timeout, read: timeout)
            // A client per download has no other connection to fall back on: retrying a refused
            // connection until the timeout only held the request (and its worker) for nothing.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let hop = await download(url.text, validators: validators, with: client)
            try? await client.shutdown()
            switch hop {
            case .fetched(let fetched): return fetched
            case .failure(let failure): throw failure
            case .redirect(let target): url = try allowed(target)
            }
        }
        throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "more than \(Self.redirectLimit) redirects")
    }

    /// What the origin sent: the image with its validators, or that the copy is still good.
    private enum Fetched {
        case body(Data, etag: String?, lastModified: String?)
        case notModified
    }

    /// One request's answer, before redirects are followed.
    private enum Hop {
        case fetched(Fetched)
        case failure(ServiceFailure)
        case redirect(String)
    }

    /// The normalised URL, which is what gets requested, when it is under an allowed prefix (compared
    /// by parts, see `SourceURL`).
    private func allowed(_ location: String) throws(ServiceFailure) -> SourceURL {
        guard let url = SourceURL(location), prefixes.contains(where: url.isUnder) else { throw Self.refused }
        return url
    }

    /// The address to connect to for `url`, when none of its host's addresses is internal (or they
    /// are allowed).
    private func address(of url: SourceURL) throws(ServiceFailure) -> String {
        guard let addresses = SourceAddress.resolve(url.host), let first = addresses.first else {
            throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "the source's host does not resolve")
        }
        if !allowInternal, addresses.contains(where: SourceAddress.isInternal) { throw Self.refused }
        return first
    }

    private static let refused = ServiceFailure(status: .notFound, error: "source-not-allowed",
                                                detail: "the source is not under an allowed prefix or address")

    private func download(_ location: String, validators: SourceCache.Record?, with client: HTTPClient) async -> Hop {
        var request = HTTPClientRequest(url: location)
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        do {
            let response = try await client.execute(request, timeout: timeout)
            switch response.status.code {
            case 200:
                if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBytes {
                    return .failure(tooLarge)
                }
                var data = Data()
                for try await chunk in response.body {
                    data.append(contentsOf: chunk.readableBytesView)
                    // Stop reading at once: the client is shut down, which drops the connection.
                    if data.count > maxBytes { return .failure(tooLarge) }
                }
                return .fetched(.body(data, etag: response.headers.first(name: "etag"), lastModified: response.headers.first(name: "last-modified")))
            case 304 where validators != nil:
                return .fetched(.notModified)
            case 301, 302, 303, 307, 308:
                guard let target = response.headers.first(name: "location"),
                      let resolved = URL(string: target, relativeTo: URL(string: location))?.absoluteString else {
                    return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "a redirect without a location"))
                }
                return .redirect(resolved)
            case 404, 410:
                return .failure(ServiceFailure(status: .notFound, error: "source-not-found", detail: "the origin has no such image"))
            default:
                return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "the origin answered \(response.status.code)"))
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return .failure(ServiceFailure(status: .gatewayTimeout, error: "origin-timeout", detail: "the origin did not answer in time"))
        } catch {
            return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "the origin could not be reached"))
        }
    }

    var tooLarge: ServiceFailure {
        ServiceFailure(status: .contentTooLarge, error: "source-too-large", detail: "the source is over \(maxBytes) bytes")
    }
}

/// Sources held in memory at once, downloading or waiting to be rendered (`--max-downloads`).
final class SourceSlots: Sendable {
    let limit: Int
    private let held = Locked(0)

    init(limit: Int) { self.limit = limit }

    func acquire() -> Bool {
        held.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func release() { held.withLock { $0 -= 1 } }
}

/// A source's bytes in memory and their slot: the slot is given back when the last request using
/// the bytes lets go of this, so the count is of bytes really held, however many requests share them.
final class HeldSource: @unchecked Sendable {
    private let slots: SourceSlots
    /// Set once, by whoever took the slot, before anyone else sees it.
    fileprivate(set) var data = Data()

    /// Takes a slot, or answers 503 when every slot is held.
    init(slots: SourceSlots) throws(ServiceFailure) {
        guard slots.acquire() else {
            var busy = ServiceFailure(status: .serviceUnavailable, error: "overloaded",
                                      detail: "\(slots.limit) sources are being fetched or waiting; try again shortly")
            busy.retryAfter = 1
            throw busy
        }
        self.slots = slots
    }

    deinit { slots.release() }
}

/// Source bytes some request holds now, by digest, so concurrent renders of one source (its sizes)
/// share them and its slot instead of each reading the copy into a slot of its own.
final class SourcesInMemory: Sendable {
    private final class Weak: @unchecked Sendable { weak var held: HeldSource? }
    private let entries = Locked<[String: Weak]>([:])

    subscript(digest: String) -> HeldSource? {
        get { entries.withLock { $0[digest]?.held } }
        set {
            entries.withLock { entries in
                entries = entries.filter { $0.value.held != nil }
                let box = Weak()
                box.held = newValue
                entries[digest] = box
            }
        }
    }
}

/// A remote source as a request sees it: its record, the bytes when they came with the lookup, and
/// how the lookup went (for metrics).
struct RemoteSource: Sendable {
    enum Outcome: String, Sendable { case fresh, downloaded, revalidated, stale }

    var url: SourceURL
    var record: SourceCache.Record
    var held: HeldSource?
    var outcome: Outcome
}

/// How long a source's copy answers for it without the origin (`--source-ttl`), and how much longer
/// it is served while the origin fails (`--source-stale-if-error`, as RFC 5861's `stale-if-error`).
struct SourceFreshness: Sendable {
    var ttl: Double
    var staleIfError: Double

    func isFresh(_ record: SourceCache.Record, now: Date) -> Bool {
        now.timeIntervalSince1970 - record.validated < ttl
    }

    func isUsableOnError(_ record: SourceCache.Record, now: Date) -> Bool {
        now.timeIntervalSince1970 - record.validated < ttl + staleIfError
    }
}

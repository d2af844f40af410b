import Foundation
import Hummingbird
import ImagePipeline
import Logging

/// Answers every request of the thumbnail service on its public port: `/health` and
/// `/{signature}/{options}/{source}`. The order of checks is the order of cost: signature (403, no
/// work and no source access), options (400/404), source (404), `If-None-Match` (304, no work), disk
/// cache, then one processing per output however many ask (single flight) on the bounded pool (503
/// when its queue is full). One access-log line per request, the signature elided.
struct ThumbnailResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let settings: ServeSettings
    let signature: SignatureCheck
    let sources: LocalSourceRoot?
    let remote: RemoteSources
    let processor: ImageProcessor
    let pool: ImageWorkPool
    let cache: DiskCache?
    let memory: MemoryCache?
    let flight = SingleFlight<EncodedImage>()
    let metrics: ServiceMetrics
    let logger: Logger
    let cacheWarning = OnceFlag()

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        metrics.inFlight(1)
        defer { metrics.inFlight(-1) }
        let (response, outcome): (Response, String)
        do throws(ServiceFailure) {
            (response, outcome) = try await route(request)
        } catch {
            (response, outcome) = (error.response, "-")
        }
        metrics.request(status: Int(response.status.code))
        Self.log(request, response, since: started, outcome: outcome, logger: logger)
        return response
    }

    /// The access-log line: method, path (signature elided), status, bytes, time, cache outcome.
    static func log(_ request: Request, _ response: Response, since started: ContinuousClock.Instant, outcome: String, logger: Logger,
                    elidingSignature elide: Bool = true) {
        let milliseconds = (ContinuousClock.now - started) / .milliseconds(1)
        let bytes = response.headers[.contentLength] ?? "0"
        let path = elide ? elidingSignature(request.uri.path) : request.uri.path
        logger.info("\(request.method) \(path) \(response.status.code) \(bytes) B \(String(format: "%.1f", milliseconds)) ms cache=\(outcome)")
    }

    /// The response, and how the cache was involved (for the access log).
    private func route(_ request: Request) async throws(ServiceFailure) -> (Response, String) {
        let path = request.uri.path
        guard request.method == .get || request.method == .head else {
            throw ServiceFailure(status: .methodNotAllowed, error: "method-not-allowed", detail: "only GET and HEAD")
        }
        if path == "/health" { return (Self.text("ok\n"), "-") }
        let trimmed = path.dropFirst()
        guard let slash = trimmed.firstIndex(of: "/"), slash > trimmed.startIndex else {
            throw ServiceFailure(status: .notFound, error: "not-found", detail: "expected /{signature}/{options}/{source}")
        }
        guard signature.accepts(signature: trimmed[..<slash], path: trimmed[slash...]) else {
            throw ServiceFailure(status: .forbidden, error: "forbidden", detail: "the signature does not match the path")
        }
        let parsed: ImageRequestPath
        do {
            parsed = try ImageRequestPath.parse(String(trimmed[slash...]), presets: settings.presets)
        } catch {
            throw ServiceFailure(error)
        }
        let (source, fingerprint, modified, held) = try await resolve(parsed.source)
        // A downloaded source's slot is held until this request is done with its bytes.
        defer { withExtendedLifetime(held) {} }
        let accept = request.headers[.accept]
        // The format and the spec are settled before any work, so bad sizes are 400 and a matching
        // If-None-Match is 304 without processing.
        let (format, negotiated): (OutputFormat, Bool)
        do { (format, negotiated) = try processor.format(for: parsed.options, accept: accept, source: source) } catch { throw ServiceFailure(.image(error)) }
        let spec: RenderSpec
        do { spec = try processor.spec(for: parsed.options, format: format) } catch { throw ServiceFailure(error) }
        let etag = processor.etag(source: parsed.source, fingerprint: fingerprint, options: parsed.options, format: format)
        var headers = headers(etag: etag, negotiated: negotiated, modified: modified)
        if Self.matches(request.headers[.ifNoneMatch], etag: etag) {
            return (Response(status: .notModified, headers: headers), "revalidated")
        }
        if let cached = cached(etag) {
            metrics.cache("hit")
            return (image(cached.data, format: cached.format, headers: &headers, method: request.method), "hit")
        }
        metrics.cache("miss")
        let output = try await render(spec, source: source, etag: etag)
        store(output, etag: etag)
        return (image(output.data, format: output.format, headers: &headers, method: request.method), "miss")
    }

    /// The source's bytes or open file, a fingerprint of its content, when it changed (local files),
    /// and what holds a download's slot.
    private func resolve(_ name: String) async throws(ServiceFailure) -> (ImageSource, String, Date?, HeldSource?) {
        if remote.isRemote(name) {
            let held = try await remote.fetch(name)
            metrics.sourceBytes(held.data.count)
            return (.data(held.data), held.digest, nil, held)
        }
        guard let file = sources?.resolve(name) else {
            throw ServiceFailure(status: .notFound, error: "source-not-found", detail: "no such image under the served root")
        }
        // --max-source-bytes bounds what one request may read into memory, local or downloaded.
        guard file.file.size <= remote.maxBytes else { throw remote.tooLarge }
        return (.opened(file.file), file.fingerprint, file.modified, nil)
    }

    /// One rendering per output: concurrent requests for it wait for the same one, on the pool.
    private func render(_ spec: RenderSpec, source: ImageSource, etag: String) async throws(ServiceFailure) -> EncodedImage {
        let (maxPixels, draft) = (processor.limits.maxPixels, processor.limits.draftDecode)
        do {
            return try await flight.run(etag) { [pool, metrics] in
                let started = ContinuousClock.now
                let output = try await pool.run { () throws(ImagePipelineError) in
                    try ImageRenderer(spec: spec).render(source, maxPixels: maxPixels, draft: draft)
                }
                metrics.processed(ContinuousClock.now - started)
                return output
            }
        } catch let error as ImagePipelineError {
            throw ServiceFailure(.image(error))
        } catch {
            throw ServiceFailure(status: .serviceUnavailable, error: "cancelled", detail: "the request went away")
        }
    }

    /// The output from memory, else from disk (then kept in memory too).
    private func cached(_ etag: String) -> DiskCache.Entry? {
        if let entry = memory?.load(key: etag) { return entry }
        guard let entry = cache?.load(key: etag) else { return nil }
        memory?.store(entry, key: etag)
        return entry
    }

    /// A full disk or a read-only cache folder is one warning; the image is served all the same.
    private func store(_ image: EncodedImage, etag: String) {
        guard let cache else { return }
        let entry = DiskCache.Entry(format: image.format, width: image.width, height: image.height, data: image.data)
        memory?.store(entry, key: etag)
        do {
            try cache.store(entry, key: etag)
        } catch {
            if cacheWarning.firstTime() { logger.warning("the cache cannot be written (\(error)); serving without it") }
        }
    }

    private func headers(etag: String, negotiated: Bool, modified: Date?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=\(settings.maxAge), immutable"
        if negotiated { headers[.vary] = "Accept" }
        if let modified { headers[.lastModified] = Self.httpDate(modified) }
        return headers
    }

    private func image(_ data: Data, format: OutputFormat, headers: inout HTTPFields, method: HTTPRequest.Method) -> Response {
        headers[.contentType] = format.mimeType
        headers[.contentLength] = String(data.count)
        metrics.bytesOut(data.count)
        return Response(status: .ok, headers: headers, body: method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func text(_ text: String, type: String = "text/plain; charset=utf-8") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        headers[.contentLength] = String(text.utf8.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether an `If-None-Match` list names `etag`: weak comparison (RFC 9110 §13.1.2), so `W/"x"`
    /// matches `"x"`, and `*` matches anything.
    static func matches(_ ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.filter { $0 != " " && $0 != "\t" }
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// `/…/pr:list/…`: logs never carry a full signature. The first segment that is not empty is the
    /// one elided (`//SIGNATURE/…` is refused, but still logged), and a lone segment other than the
    /// service's own routes may be one too.
    static func elidingSignature(_ path: String) -> String {
        if path == "/health" { return path }
        let slashes = path.prefix { $0 == "/" }
        let rest = path.dropFirst(slashes.count)
        guard !rest.isEmpty else { return path }
        return slashes + "…" + (rest.firstIndex(of: "/").map { rest[$0...] } ?? "")
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110's date (`Sun, 06 Nov 1994 08:49:37 GMT`), by hand: `DateFormatter` was a visible share
    /// of a revalidation's time.
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// Set once, for warnings that would otherwise repeat on every request.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    func firstTime() -> Bool {
        lock.withLock {
            defer { done = true }
            return !done
        }
    }
}

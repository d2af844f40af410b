import Foundation
import Hummingbird
import ImagePipeline
import Logging
import MarketUploader

/// The answer to one image URL, `/{signature}/{options}/{source}`, read as numbered steps (as
/// imgproxy's handler is). Each step costs less than the next, and the first that can answer does:
/// a bad signature touches nothing, a 304 processes nothing, a hit decodes nothing.
struct ImageRequestHandler: Sendable {
    let rules: URLRules
    let maxAge: Int
    let signature: SignatureCheck
    /// Asked in turn; the first that claims a source's name resolves it.
    let sources: [any SourceKind]
    let planner: OutputPlanner
    let pool: ImageWorkPool
    let caches: OutputCaches
    let metrics: ServiceMetrics
    let fallback: FallbackImage?
    let memory: MemoryBudget
    let watermark: ConfiguredWatermark?
    let watermarkOpacity: Double
    private let flight = SingleFlight<EncodedImage>()
    private let parsedPaths = ParsedPaths()

    init(rules: URLRules, maxAge: Int, signature: SignatureCheck, sources: [any SourceKind],
         planner: OutputPlanner, pool: ImageWorkPool, memory: MemoryBudget, caches: OutputCaches, metrics: ServiceMetrics, fallback: FallbackImage?,
         watermark: ConfiguredWatermark? = nil, watermarkOpacity: Double = 1) {
        (self.memory, self.watermark, self.watermarkOpacity) = (memory, watermark, watermarkOpacity)
        (self.rules, self.maxAge, self.signature, self.sources) = (rules, maxAge, signature, sources)
        (self.planner, self.pool, self.caches, self.metrics, self.fallback) = (planner, pool, caches, metrics, fallback)
    }

    /// The response, and how the caches were involved (for the access log).
    func respond(to request: Request) async throws(ServiceFailure) -> (Response, String) {
        // 1. GET and HEAD only.
        guard request.method == .get || request.method == .head else {
            throw ServiceFailure(status: .methodNotAllowed, error: "method-not-allowed", detail: "only GET and HEAD")
        }
        // 2. The signature, before anything in the path is parsed or any source touched. An info URL
        //    (`/info/{signature}/…`, imgproxy's) is signed as an image URL is; both under the path
        //    prefix, which is not signed.
        guard let path = rules.unprefixed(request.uri.path) else {
            throw ServiceFailure(status: .notFound, error: "not-found", detail: "image URLs are under \(rules.pathPrefix ?? "")/")
        }
        let info = path.hasPrefix("/info/")
        // A signed path accepted and parsed before is neither checked nor parsed again: the same
        // bytes carry the same signature (`ParsedPaths`).
        let parsed = try parsedPaths.parsed(String(path.dropFirst(info ? "/info/".count : 1)), info: info) { signed throws(ServiceFailure) in
            guard let slash = signed.firstIndex(of: "/"), slash > signed.startIndex else {
                throw ServiceFailure(status: .notFound, error: "not-found", detail: "expected /{signature}/{options}/{source}")
            }
            guard signature.accepts(signature: signed[..<slash], path: signed[slash...]) else {
                throw ServiceFailure(status: .forbidden, error: "forbidden", detail: "the signature does not match the path")
            }
            // 3. Options and source name, parsed and bounded (presets only, if so configured), with
            //    the service's defaults.
            do throws(ProcessingError) {
                var parsed = try rules.parse(String(signed[slash...]), info: info)
                parsed.options = planner.applyingDefaults(to: parsed.options)
                return parsed
            } catch {
                throw ServiceFailure(error)
            }
        }
        if info { return try await describe(parsed, to: request) }
        do {
            return try await answer(parsed, to: request)
        } catch {
            // 10. A source missing or failing: the fallback image, if there is one, at the size asked.
            guard let fallback, fallback.covers(error) else { throw error }
            return try await answer(parsed, to: request, with: fallback, instead: error)
        }
    }

    /// Steps 4 to 9: from the source to the image.
    private func answer(_ parsed: ImageRequestPath, to request: Request) async throws(ServiceFailure) -> (Response, String) {
        // 4. The source, by the kind that claims its name: a file opened under the root, or a remote
        //    source's record (fresh, revalidated or downloaded; one origin request at a time).
        let source = try await resolve(parsed.source)
        if parsed.options.raw { return try await unprocessed(parsed, source: source, to: request) }
        // 5. Format and output, settled before any work, so bad sizes are 400.
        let (format, negotiated): (OutputFormat, Bool)
        do {
            (format, negotiated) = try planner.format(for: parsed.options, accept: request.headers[.accept], source: { () throws(ImagePipelineError) in try source.traits() })
        } catch {
            throw ServiceFailure(error)
        }
        var spec: RenderSpec
        do { spec = try planner.spec(for: parsed.options, format: format) } catch { throw ServiceFailure(error) }
        // The watermark's source, resolved as any source is: its content is part of the output's.
        let mark = try await watermarkSource(for: parsed.options)
        // 6. The ETag: a matching If-None-Match is a 304 with no work.
        let fingerprint = source.fingerprint + (mark.map { "\nwatermark:\($0.identity)\n\($0.fingerprint)" } ?? "")
        let etag = planner.etag(source: source.identity, fingerprint: fingerprint, options: parsed.options, format: format)
        var headers = HTTPAnswer.imageHeaders(etag: etag, maxAge: maxAge, negotiated: negotiated, modified: source.modified)
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag: etag) {
            return (Response(status: .notModified, headers: headers), "revalidated")
        }
        disposition(parsed, fileExtension: format.fileExtension, &headers)
        // 7. The caches: memory, then the folder or the bucket.
        if let (cached, outcome) = await caches.load(etag), let format = cached.format {
            metrics.cache(outcome)
            if let quality = cached.quality { headers[HTTPAnswer.quality] = quality }
            return (image(cached.data, format: format, headers: &headers, method: request.method), outcome)
        }
        metrics.cache("miss")
        if let mark { spec.watermark = try await watermark(parsed.options, from: mark) }
        // 8. One rendering per output however many ask, on the bounded pool.
        let output = try await render(spec, options: parsed.options, source: source, etag: etag)
        // 9. Kept for the next request, and sent.
        await caches.store(output, etag: etag)
        if let quality = HTTPAnswer.qualityHeader(output) { headers[HTTPAnswer.quality] = quality }
        return (image(output.data, format: output.format, headers: &headers, method: request.method), "miss")
    }

    /// An info URL's answer: the source's format and upright size, and what a cell shows before the
    /// image loads (`Placeholder`), as JSON, with an ETag of the source's fingerprint.
    private func describe(_ parsed: ImageRequestPath, to request: Request) async throws(ServiceFailure) -> (Response, String) {
        let source = try await resolve(parsed.source)
        let etag = "\"" + Fingerprint.hex("info\n" + source.identity + "\n" + source.fingerprint) + "\""
        var headers = HTTPAnswer.imageHeaders(etag: etag, maxAge: maxAge, negotiated: false, modified: source.modified)
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag: etag) {
            return (Response(status: .notModified, headers: headers), "revalidated")
        }
        // Kept like an image (memory, then the folder or the bucket): the same source asked again, under any `cb`, costs
        // no decode.
        if let (cached, outcome) = await caches.load(etag), cached.format == nil {
            metrics.cache(outcome)
            return (HTTPAnswer.body(cached.data, type: "application/json", headers: &headers, method: request.method), outcome)
        }
        metrics.cache("miss")
        let maxPixels = planner.limits.maxPixels
        let info = try await decoding(source, limits: parsed.options.limits, cost: { DecodeCost.bytes(header: $0, box: (ThumbHash.maxSide, ThumbHash.maxSide)) }) { image throws(ImagePipelineError) in
            try ImageInfo(image, maxPixels: maxPixels)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(info)) ?? Data()
        await caches.store(DiskCache.Entry(format: nil, width: info.width, height: info.height, data: body), etag: etag)
        return (HTTPAnswer.body(body, type: "application/json", headers: &headers, method: request.method), "miss")
    }

    /// The fallback image rendered as `parsed` asks, sent with the failure's status (or the one
    /// configured); its output is never stored under a real ETag.
    private func answer(_ parsed: ImageRequestPath, to request: Request, with fallback: FallbackImage,
                        instead failure: ServiceFailure) async throws(ServiceFailure) -> (Response, String) {
        let (format, negotiated) = planner.format(for: parsed.options, accept: request.headers[.accept], source: { fallback.traits })
        var spec: RenderSpec
        do { spec = try planner.spec(for: parsed.options, format: format) } catch { throw ServiceFailure(error) }
        if let mark = try await watermarkSource(for: parsed.options) { spec.watermark = try await watermark(parsed.options, from: mark) }
        let key = "fallback " + planner.etag(source: "", fingerprint: fallback.digest, options: parsed.options, format: format)
        let output = try await render(spec, options: parsed.options, source: fallback.source, etag: key)
        var headers = fallback.headers(negotiated: negotiated)
        disposition(parsed, fileExtension: output.format.fileExtension, &headers)
        metrics.bytesOut(output.data.count)
        return (HTTPAnswer.body(output.data, type: output.format.mimeType, headers: &headers, method: request.method,
                                status: fallback.status ?? failure.status), "fallback")
    }

    /// Where the URL's watermark comes from: its `wmu`, else the service's own; nil without `wm`.
    private func watermarkSource(for options: ProcessingOptions) async throws(ServiceFailure) -> (any ResolvedSource)? {
        guard options.watermark != nil else { return nil }
        if let name = options.watermarkSource { return try await resolve(name) }
        switch watermark {
        case .image(let image)?: return image
        case .source(let name)?: return try await resolve(name)
        case nil:
            throw ServiceFailure(status: .badRequest, error: "no-watermark",
                                 detail: "wm: this service has no watermark of its own (--watermark); name one with wmu")
        }
    }

    /// The watermark as the renderer draws it, its bytes read now (only a miss gets here).
    private func watermark(_ options: ProcessingOptions, from source: any ResolvedSource) async throws(ServiceFailure) -> RenderSpec.Watermark? {
        let bytes = try await source.open()
        do {
            return options.watermark(image: try bytes.image.bytes(), baseOpacity: watermarkOpacity)
        } catch {
            throw ServiceFailure(error)
        }
    }

    private func resolve(_ name: String) async throws(ServiceFailure) -> any ResolvedSource {
        guard let kind = sources.first(where: { $0.claims(name) }) else {
            throw ServiceFailure(status: .notFound, error: "source-not-found", detail: "no source of this kind is served here")
        }
        return try await kind.resolve(name)
    }

    /// `raw`: the source's own bytes, checked as any source is (its byte limit, the loader allow-list,
    /// the pixel limit) and sent only when every part of the file is one that shows pixels
    /// (`EncodedImage.unprocessed`); otherwise 422, naming the part found and what to ask for instead.
    private func unprocessed(_ parsed: ImageRequestPath, source: any ResolvedSource, to request: Request) async throws(ServiceFailure) -> (Response, String) {
        let etag = planner.etag(source: source.identity, fingerprint: source.fingerprint, options: parsed.options, format: .jpeg)
        var headers = HTTPAnswer.imageHeaders(etag: etag, maxAge: maxAge, negotiated: false, modified: source.modified)
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag: etag) {
            return (Response(status: .notModified, headers: headers), "revalidated")
        }
        let maxPixels = planner.maxPixels(parsed.options.limits)
        let unprocessed = try await decoding(source, limits: parsed.options.limits, cost: { _ in 0 }) { image throws(ImagePipelineError) in
            try EncodedImage.unprocessed(image, maxPixels: maxPixels)
        }
        let output: EncodedImage
        switch unprocessed {
        case .success(let image): output = image
        case .failure(let refusal):
            throw ServiceFailure(status: .unprocessableContent, error: "not-raw",
                                 detail: "raw: the source is not served as it is: \(refusal.reason), which only a render removes; "
                                    + "ask for it without raw to have it processed")
        }
        disposition(parsed, fileExtension: output.format.fileExtension, &headers)
        return (image(output.data, format: output.format, headers: &headers, method: request.method), "raw")
    }

    /// `Content-Disposition`, when the URL asks for a file name or an attachment (`fn`, `att`).
    private func disposition(_ parsed: ImageRequestPath, fileExtension: String, _ headers: inout HTTPFields) {
        if let value = ContentDisposition.value(filename: parsed.options.filename, attachment: parsed.options.returnAttachment,
                                                source: parsed.source, fileExtension: fileExtension) {
            headers[.contentDisposition] = value
        }
    }

    private func render(_ spec: RenderSpec, options: ProcessingOptions, source: any ResolvedSource, etag: String) async throws(ServiceFailure) -> EncodedImage {
        let (maxPixels, draft) = (planner.maxPixels(options.limits), planner.limits.draftDecode)
        let skip = options.skipProcessing.contains(spec.format)
        do {
            return try await flight.run(etag) { [self] in
                let cost = { (header: ImageHeader) in
                    DecodeCost.bytes(header: header, box: spec.decodeBox(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight),
                                     outputPixels: spec.outputPixelBound(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight),
                                     format: spec.format, encoder: spec.encoder, frames: header.frames(keepingAtMost: spec.animationFrames),
                                     scoredPixels: spec.scoredPixelBound(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight))
                }
                let output = try await decoding(source, limits: options.limits, cost: cost) { image throws(ImagePipelineError) in
                    // `skp`: the source as it is, when it is already this format and safe to send.
                    if skip, case .success(let unprocessed) = try EncodedImage.unprocessed(image, as: spec.format, maxPixels: maxPixels) { return unprocessed }
                    return try ImageRenderer(spec: spec).render(image, maxPixels: maxPixels, draft: draft)
                }
                return output
            }
        } catch let error as ImagePipelineError {
            throw ServiceFailure(error)
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            // Only cancellation is left: this request's client went away.
            throw ServiceFailure(.cancelled)
        }
    }

    /// `work` on the source's bytes, on the pool, once admitted by what it will hold (`cost`, from
    /// the header): alone (`admissible`), and beside the others (`memory`), and stopped at
    /// `--render-timeout`. A remote source's bytes, and their slot, are held only meanwhile.
    private func decoding<T: Sendable>(_ source: any ResolvedSource, limits: ProcessingOptions.RequestLimits, cost: (ImageHeader) -> Int,
                                       _ work: @escaping @Sendable (ImageSource) throws(ImagePipelineError) -> T) async throws(ServiceFailure) -> T {
        let bytes = try await source.open()
        // `msfs`: a URL's own, lower, limit on the source's bytes.
        if let limit = limits.sourceBytes, let count = bytes.image.byteCount, count > limit { throw ServiceFailure.sourceTooLarge(limit: limit) }
        let cost = try admissible(bytes, limits: limits, cost: cost)
        let admitted = ContinuousClock.now
        await memory.acquire(cost)
        let result: Result<T, ImagePipelineError>
        do {
            result = .success(try await pool.run(timeout: planner.limits.renderTimeout) { [metrics] () throws(ImagePipelineError) in
                let started = ContinuousClock.now
                defer { metrics.processed(ContinuousClock.now - started, queued: started - admitted) }
                return try withExtendedLifetime(bytes.held) { () throws(ImagePipelineError) in try work(bytes.image) }
            })
        } catch {
            switch error {
            case .timedOut: metrics.stopped("timeout")
            case .cancelled: metrics.stopped("client-gone")
            default: break
            }
            result = .failure(error)
        }
        await memory.release(cost)
        return try result.mapError(ServiceFailure.init).get()
    }

    /// The memory a render of these bytes will hold, by its header, when it is within
    /// `--max-render-memory` (and the pixel limit); otherwise the 413 that says so, before any decode.
    private func admissible(_ bytes: SourceBytes, limits request: ProcessingOptions.RequestLimits, cost: (ImageHeader) -> Int) throws(ServiceFailure) -> Int {
        let header: ImageHeader
        do { header = try ImageHeader.read(bytes.image) } catch { throw ServiceFailure(error) }
        let limits = planner.limits
        let (maxPixels, frameLimit) = (planner.maxPixels(request), planner.maxFramePixels(request))
        guard header.pixelCount <= maxPixels else {
            throw ServiceFailure(.tooManyPixels(width: header.width, height: header.height, limit: maxPixels))
        }
        if header.isAnimation, let frameLimit, header.pixelCount > frameLimit {
            throw ServiceFailure(status: .contentTooLarge, error: "too-many-pixels",
                                 detail: "each frame of this animation is \(header.width)×\(header.height); the limit is \(frameLimit) pixels a frame")
        }
        let cost = cost(header)
        guard cost <= limits.maxRenderMemory else {
            throw ServiceFailure(status: .contentTooLarge, error: "too-costly",
                                 detail: "rendering this \(header.format) (\(header.width)×\(header.height)\(header.interlaced ? ", interlaced" : "")) "
                                    + "would take about \(cost >> 20) MB; the limit is \(limits.maxRenderMemory >> 20) MB")
        }
        return cost
    }

    private func image(_ data: Data, format: OutputFormat, headers: inout HTTPFields, method: HTTPRequest.Method) -> Response {
        metrics.bytesOut(data.count)
        return HTTPAnswer.body(data, type: format.mimeType, headers: &headers, method: method)
    }
}

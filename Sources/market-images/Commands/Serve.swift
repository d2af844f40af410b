import ArgumentParser
import Foundation
import ImagePipeline
import Logging
import ThumbnailService

/// `market-images serve`: the thumbnail service (the `ThumbnailService` library) from flags. Photos
/// under `--root` or from `--allow-source` origins, at the size, crop and format a screen asks for in
/// an imgproxy-style signed URL, cached on disk, on a bounded pool.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve product photos at the size a screen needs, from signed imgproxy-style URLs.",
        discussion: """
        URLs are /{signature}/{options}/{source}: options in imgproxy's names (see `market-images url`), \
        the source local:///path under --root, or an http(s) URL under an --allow-source prefix. The key and \
        salt are hex, from $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT or --key-file (several comma-separated \
        pairs while rotating); without them the service refuses to start unless --only-presets (unsigned \
        preset URLs, any address) or --insecure-unsigned (any URL, loopback only). http(s) sources must not be on \
        an internal address unless --allow-private-sources. SIGTERM or SIGINT stops accepting, lets requests in \
        flight finish within --grace seconds, and exits 0. GET /health is served too, and GET /metrics \
        (Prometheus) on --metrics-bind, apart from the public port.

        Every option can also be set as MARKET_IMAGES_<OPTION> in the environment (MARKET_IMAGES_CACHE, \
        MARKET_IMAGES_ALLOW_SOURCE=a,b; switches true or false), or as the same NAME=value lines in a \
        --config file: a flag wins over the environment, which wins over the file.

        EXAMPLES:
          market-images serve --root ready --cache /var/cache/market-images
          market-images serve --root ready --bind 0.0.0.0:8080 --key-file key.hex
          market-images serve --root Samples --insecure-unsigned
          market-images serve --only-presets --allow-source https://img.example.com/
          market-images serve --config /etc/market-images/serve.env
        """
    )

    /// Defaults, shown in the help: flags are optional so that an unset one falls through to the environment.
    private static let defaults = ServiceConfiguration()

    @Option(help: ArgumentHelp("A file of MARKET_IMAGES_NAME=value lines (systemd's EnvironmentFile format), below flags and the environment.", valueName: "file"))
    var config: String?

    @Option(help: "The folder local:/// sources are served from (optional with --allow-source).")
    var root: String?

    @Option(name: .customLong("allow-source"), parsing: .singleValue,
            help: "An http(s) URL prefix sources may come from, e.g. https://images.example.com/; repeatable.")
    var allowedSources: [String] = []

    @Flag(inversion: .prefixedNo, help: "Allow sources on loopback, private and link-local addresses (refused by default).")
    var allowPrivateSources: Bool?

    @Option(help: "Largest source download in bytes; the download stops as soon as it is exceeded (default: \(defaults.maxSourceBytes)).")
    var maxSourceBytes: Int?

    @Option(help: "Seconds a source download may take (default: \(defaults.downloadTimeout.components.seconds)).")
    var downloadTimeout: Int?

    @Option(help: "http(s) sources held at once, downloading or waiting for a worker (one per source however many sizes are asked); more are answered 503 (default: \(defaults.maxDownloads)).")
    var maxDownloads: Int?

    @Option(help: "Downloads from one origin at once, so a slow origin cannot take every slot; more are answered 503 (default: half of --max-downloads).")
    var maxDownloadsPerOrigin: Int?

    @Option(help: ArgumentHelp("With --cache, seconds a downloaded source is used without asking its origin (0: revalidate on every request; default: \(defaults.sourceTTL)).", valueName: "seconds"))
    var sourceTTL: Int?

    @Option(help: ArgumentHelp("Seconds past --source-ttl a source's copy is still served while its origin fails (default: \(defaults.sourceStaleIfError)).", valueName: "seconds"))
    var sourceStaleIfError: Int?

    @Option(help: "Largest size of the source cache (CACHE/sources) in bytes (default: \(defaults.sourceCacheSize)).")
    var sourceCacheSize: Int?

    @Option(help: ArgumentHelp("An image served, at the size asked, when a source is missing or fails.", valueName: "file"))
    var fallbackImage: String?

    @Option(help: ArgumentHelp("The watermark a URL's wm draws when it names none (wmu): a file, or a local:/// or allowed http(s) source.", valueName: "image"))
    var watermark: String?

    @Option(help: "Every watermark's opacity is multiplied by this, 0 to 1 (default: \(String(format: "%g", defaults.watermarkOpacity))).")
    var watermarkOpacity: Double?

    @Option(help: "The status sent with the fallback image (default: the failure's own, e.g. 404).")
    var fallbackStatus: Int?

    @Option(help: ArgumentHelp("max-age of a fallback answer, in seconds (default: \(defaults.fallbackMaxAge)).", valueName: "seconds"))
    var fallbackMaxAge: Int?

    @Option(help: "Address and port to listen on; port 0: any free port, printed at start (default: \(defaults.bind)).")
    var bind: String?

    @OptionGroup var key: ServiceKeyOptions

    @Flag(inversion: .prefixedNo, help: "Accept any signature (no key). Loopback addresses only.")
    var insecureUnsigned: Bool?

    @Flag(inversion: .prefixedNo, help: "URLs may name only presets, a dpr of --preset-dprs and a format; then no key is needed on any address (apps need not hold one).")
    var onlyPresets: Bool?

    @Option(help: "With --only-presets, the dpr values a URL may give, comma-separated; any other is 400 (default: 1,2,3).")
    var presetDprs: String?

    @Option(help: "Bytes of the HMAC a signature carries, 1–32 (imgproxy's IMGPROXY_SIGNATURE_SIZE; default: \(defaults.signatureSize)).")
    var signatureSize: Int?

    @Option(help: "A folder for finished outputs (default: no disk cache).")
    var cache: String?

    @Option(help: "Largest size of the disk cache in bytes (default: \(defaults.cacheSize)).")
    var cacheSize: Int?

    @Option(help: "With --cache, bytes of the most recent outputs also kept in memory (0: none; default: \(defaults.memoryCache)).")
    var memoryCache: Int?

    @Option(help: "Images processed at once (default: the number of cores).")
    var workers: Int?

    @Option(help: "Requests that may wait for a worker; more are answered 503 with Retry-After (default: \(defaults.queue)).")
    var queue: Int?

    @Option(help: "No output side is larger than this, whatever the URL asks (default: \(defaults.limits.maxOutputEdge)).")
    var maxOutputEdge: Int?

    @Option(help: "Refuse sources with more pixels than this, read from the header before decoding (default: \(defaults.limits.maxPixels)).")
    var maxPixels: Int?

    @Option(help: "Frames of an animated GIF or WebP kept in a WebP output; 1 makes every output a still (default: \(defaults.limits.maxAnimationFrames)).")
    var maxAnimationFrames: Int?

    @Option(help: "Refuse animated sources whose frames have more pixels than this (default: only --max-pixels, all frames kept counted).")
    var maxAnimationFrameResolution: Int?

    @Option(help: "A render whose memory, estimated from the source's header before decoding, would be larger is refused 413 (default: \(defaults.limits.maxRenderMemory)).")
    var maxRenderMemory: Int?

    @Option(help: "Bytes all renders at once may hold, by their estimates; more wait (default: \(defaults.renderMemory)).")
    var renderMemory: Int?

    @Option(help: "Seconds a render may run once a worker takes it up; then it is stopped and answered 503 (default: \(defaults.limits.renderTimeout?.components.seconds ?? 0)).")
    var renderTimeout: Int?

    @Option(help: "Quality when the URL gives none (default: \(defaults.limits.defaultQuality)).")
    var quality: Int?

    @Option(help: ArgumentHelp("A format's quality when the URL gives none, FORMAT=QUALITY comma-separated, e.g. webp=79,avif=63 (default: avif=63,jxl=77).", valueName: "list"))
    var formatQuality: String?

    @Option(help: ArgumentHelp("The quality choice of URLs that make none (no aq, q or fq): ssimulacra2:SCORE[:MIN:MAX], the smallest quality that looks that good, or size:BYTES[:MIN:MAX] (default: off).", valueName: "method"))
    var autoQuality: String?

    @Option(help: "Outputs with more pixels than this are not scored for aq:ssimulacra2 but encoded at the quality they would have without it; 0: no limit (default: \(defaults.limits.autoQualityMaxPixels ?? 0)).")
    var autoQualityMaxResolution: Int?

    @Flag(inversion: .prefixedNo, help: "URLs may give imgproxy's security options (msr, msfs, mrd, maf, mafr), which only ever lower this service's limits.")
    var allowSecurityOptions: Bool?

    @Flag(inversion: .prefixedNo, help: "Decode JPEGs straight to the output's scale, as thumbor does: faster (BENCHMARKS.md, stages section), softer and blockier.")
    var fastDecode: Bool?

    @Flag(inversion: .prefixedNo, help: "Baseline JPEGs instead of progressive (progressive is a few percent smaller and shows while it loads).")
    var baselineJPEG: Bool?

    @Option(help: ArgumentHelp("AV1 effort for AVIF, 0 (fastest) to 9: higher is smaller and far slower, BENCHMARKS.md (default: \(defaults.limits.encoder.avifEffort)).", valueName: "n"))
    var avifEffort: Int?

    @Flag(inversion: .prefixedNo, help: "Answer AVIF to clients whose Accept lists image/avif (before WebP) when the URL names no format; smaller, slower to encode.")
    var autoAvif: Bool?

    @Option(help: ArgumentHelp("libjxl's effort for JPEG XL, 3 (fastest) to 9 (default: \(defaults.limits.encoder.jxlEffort)).", valueName: "n"))
    var jxlEffort: Int?

    @Flag(inversion: .prefixedNo, help: "Answer JPEG XL to clients whose Accept lists image/jxl (Safari 17, iOS 17), before AVIF and WebP, when the URL names no format.")
    var autoJxl: Bool?

    @Option(name: .customLong("preset"), parsing: .singleValue, help: "A preset NAME=OPTIONS, e.g. card=rs:fill:300:200/g:sm; repeatable.")
    var presets: [String] = []

    @Option(help: "Cache-Control max-age of images, in seconds (default: \(defaults.maxAge)).")
    var maxAge: Int?

    @Option(help: "Seconds that requests in flight get to finish after SIGTERM (default: \(defaults.grace.components.seconds)).")
    var grace: Int?

    @Option(help: "Seconds a connection may go without a complete request (idle, or sending one slowly) before it is closed (default: \(defaults.idleTimeout.components.seconds)).")
    var idleTimeout: Int?

    @Option(help: "Connections held open at most; at the cap, the one idle longest is closed for a new one (default: 4096, or half the open-file limit if lower).")
    var maxConnections: Int?

    @Option(help: "Address and port of GET /metrics (Prometheus), apart from the public port; off for none (default: \(defaults.metricsBind.map(String.init(describing:)) ?? "off")).")
    var metricsBind: String?

    /// The flags over the environment over the `--config` file, as the service's configuration. A wrong
    /// value anywhere is a usage error.
    private func serviceConfiguration() throws -> ServiceConfiguration {
        let from = try SettingSources.load(config: config)
        var configuration = Self.defaults
        configuration.root = try from.value(root, "root")
        configuration.allowedSources = from.list(allowedSources, "allow-source")
        configuration.allowPrivateSources = try from.isOn(allowPrivateSources, "allow-private-sources")
        configuration.maxSourceBytes = try from.value(maxSourceBytes, "max-source-bytes", default: configuration.maxSourceBytes)
        configuration.downloadTimeout = .seconds(try from.value(downloadTimeout, "download-timeout", default: Int(configuration.downloadTimeout.components.seconds)))
        configuration.maxDownloads = try from.value(maxDownloads, "max-downloads", default: configuration.maxDownloads)
        configuration.maxDownloadsPerOrigin = try from.value(maxDownloadsPerOrigin, "max-downloads-per-origin")
        configuration.sourceTTL = try from.value(sourceTTL, "source-ttl", default: configuration.sourceTTL)
        configuration.sourceStaleIfError = try from.value(sourceStaleIfError, "source-stale-if-error", default: configuration.sourceStaleIfError)
        configuration.sourceCacheSize = try from.value(sourceCacheSize, "source-cache-size", default: configuration.sourceCacheSize)
        configuration.fallbackImage = try from.value(fallbackImage, "fallback-image")
        configuration.fallbackStatus = try from.value(fallbackStatus, "fallback-status")
        configuration.fallbackMaxAge = try from.value(fallbackMaxAge, "fallback-max-age", default: configuration.fallbackMaxAge)
        configuration.watermark = try from.value(watermark, "watermark")
        configuration.watermarkOpacity = try from.value(watermarkOpacity, "watermark-opacity", default: configuration.watermarkOpacity)
        configuration.keys = try key.load(from: from).map { SigningKey(key: $0.key, salt: $0.salt) }
        configuration.signatureSize = try from.value(signatureSize, "signature-size", default: configuration.signatureSize)
        configuration.onlyPresets = try from.isOn(onlyPresets, "only-presets")
        if let text = try from.value(presetDprs, "preset-dprs") {
            let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
                throw ValidationError("\(from.origin(of: "preset-dprs")) takes numbers separated by commas, e.g. 1,2,3; got \(Terminal.display(text))")
            }
            configuration.presetDPRs = values.compactMap { $0 }
        }
        configuration.allowUnsigned = try from.isOn(insecureUnsigned, "insecure-unsigned")
        guard !configuration.keys.isEmpty || configuration.allowUnsigned || configuration.onlyPresets else {
            throw ValidationError("no key: set $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT (hex) or --key-file; "
                + "--only-presets serves unsigned preset URLs on any address, --insecure-unsigned any URL on loopback only")
        }
        configuration.workers = try from.value(workers, "workers", default: configuration.workers)
        configuration.queue = try from.value(queue, "queue", default: configuration.queue)
        configuration.limits.defaultQuality = try from.value(quality, "quality", default: configuration.limits.defaultQuality)
        if let text = try from.value(formatQuality, "format-quality") {
            configuration.limits.formatQuality = try formatQualities(text, from.origin(of: "format-quality"))
        }
        configuration.allowSecurityOptions = try from.isOn(allowSecurityOptions, "allow-security-options")
        if let text = try from.value(autoQuality, "auto-quality") {
            do { configuration.limits.autoQuality = try ProcessingOptions.autoquality(parsing: text) } catch {
                throw ValidationError("\(from.origin(of: "auto-quality")): \(error.description)")
            }
        }
        let scored = try from.value(autoQualityMaxResolution, "auto-quality-max-resolution", default: configuration.limits.autoQualityMaxPixels ?? 0)
        configuration.limits.autoQualityMaxPixels = scored == 0 ? nil : scored
        configuration.limits.maxOutputEdge = try from.value(maxOutputEdge, "max-output-edge", default: configuration.limits.maxOutputEdge)
        configuration.limits.maxPixels = try from.value(maxPixels, "max-pixels", default: configuration.limits.maxPixels)
        configuration.limits.maxAnimationFrames = try from.value(maxAnimationFrames, "max-animation-frames", default: configuration.limits.maxAnimationFrames)
        configuration.limits.maxAnimationFramePixels = try from.value(maxAnimationFrameResolution, "max-animation-frame-resolution")
        configuration.limits.maxRenderMemory = try from.value(maxRenderMemory, "max-render-memory", default: configuration.limits.maxRenderMemory)
        configuration.renderMemory = try from.value(renderMemory, "render-memory", default: configuration.renderMemory)
        configuration.limits.renderTimeout = .seconds(try from.value(renderTimeout, "render-timeout",
                                                                     default: Int(configuration.limits.renderTimeout?.components.seconds ?? 10)))
        configuration.limits.draftDecode = try from.isOn(fastDecode, "fast-decode")
        configuration.limits.autoAVIF = try from.isOn(autoAvif, "auto-avif")
        configuration.limits.autoJXL = try from.isOn(autoJxl, "auto-jxl")
        configuration.limits.encoder = EncoderSettings(progressive: try !from.isOn(baselineJPEG, "baseline-jpeg"),
                                                       avifEffort: try from.value(avifEffort, "avif-effort", default: configuration.limits.encoder.avifEffort),
                                                       jxlEffort: try from.value(jxlEffort, "jxl-effort", default: configuration.limits.encoder.jxlEffort))
        configuration.presets = try from.list(presets, "preset").reduce(into: [:]) { table, text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("\(from.origin(of: "preset")) takes NAME=OPTIONS; got \"\(text)\"") }
            table[parts[0]] = parts[1]
        }
        configuration.cacheFolder = try from.value(cache, "cache")
        configuration.cacheSize = try from.value(cacheSize, "cache-size", default: configuration.cacheSize)
        configuration.memoryCache = try from.value(memoryCache, "memory-cache", default: configuration.memoryCache)
        configuration.bind = try from.value(bind, "bind").map { try address($0, from.origin(of: "bind")) } ?? configuration.bind
        switch try from.value(metricsBind, "metrics-bind") {
        case "off": configuration.metricsBind = nil
        case let text?: configuration.metricsBind = try address(text, from.origin(of: "metrics-bind"))
        case nil: break
        }
        configuration.maxAge = try from.value(maxAge, "max-age", default: configuration.maxAge)
        configuration.grace = .seconds(try from.value(grace, "grace", default: Int(configuration.grace.components.seconds)))
        configuration.idleTimeout = .seconds(try from.value(idleTimeout, "idle-timeout", default: Int(configuration.idleTimeout.components.seconds)))
        configuration.maxConnections = try from.value(maxConnections, "max-connections")
        let problems = configuration.problems
        guard problems.isEmpty else {
            throw ValidationError(problems.map { "\(from.origin(of: $0.setting)): \($0.message)" }.joined(separator: "\n"))
        }
        for name in from.unknownNames() {
            Terminal.standardError.warning("\(name) is not a setting of serve and is ignored (see market-images serve --help)")
        }
        for line in from.ignoredLines + from.imgproxyWarnings() { Terminal.standardError.warning(line) }
        return configuration
    }

    /// `jpeg=70,avif=40`, imgproxy's `IMGPROXY_FORMAT_QUALITY`.
    private func formatQualities(_ text: String, _ setting: String) throws -> [OutputFormat: Int] {
        try text.split(separator: ",").reduce(into: [:]) { table, pair in
            let parts = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let quality = Int(parts[1]),
                  let format = OutputFormat(name: parts[0]) else {
                throw ValidationError("\(setting) takes FORMAT=QUALITY pairs (jpeg, png, webp, avif, jxl), e.g. webp=79,avif=63; got \(Terminal.display(text))")
            }
            table[format] = quality
        }
    }

    private func address(_ text: String, _ setting: String) throws -> ServiceAddress {
        guard let address = ServiceAddress(text) else { throw ValidationError("\(setting) takes HOST:PORT, e.g. 127.0.0.1:8080; got \(Terminal.display(text))") }
        return address
    }

    func run() async throws {
        let configuration = try serviceConfiguration()
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "market-images")
        logger.logLevel = .info
        if configuration.keys.isEmpty && !configuration.onlyPresets {
            Terminal.standardError.warning("no key: any signature is accepted (--insecure-unsigned); loopback only")
        }
        let service = try ThumbnailService(configuration, logger: logger)
        try await service.run { what, url in Terminal.standardError.write("\(what) \(url)\n") }
    }
}

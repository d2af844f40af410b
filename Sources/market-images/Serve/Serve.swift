import ArgumentParser
import Foundation
import Hummingbird
import ImagePipeline
import Logging

/// What `serve` was started with, after checking.
struct ServeSettings: Sendable {
    var presets: [String: String]
    var maxAge: Int
}

/// `market-images serve`: the thumbnail service. Photos under `--root`, at the size, crop and format
/// a screen asks for in an imgproxy-style signed URL, cached on disk, on a bounded pool.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve product photos at the size a screen needs, from signed imgproxy-style URLs.",
        discussion: """
        URLs are /{signature}/{options}/{source}: options in imgproxy's names (see `market-images url`), \
        the source local:///path under --root. The key and salt are hex, from $MARKET_IMAGES_KEY and \
        $MARKET_IMAGES_SALT or --key-file; without them the service refuses to start unless \
        --insecure-unsigned, which binds loopback only. http(s) sources must be under an --allow-source \
        prefix and, unless --allow-private-sources, not on an internal address. SIGTERM or SIGINT stops accepting, lets \
        requests in flight finish within --grace seconds, and exits 0. GET /health is served too, and \
        GET /metrics (Prometheus) on --metrics-bind, apart from the public port.

        EXAMPLES:
          market-images serve --root ready --cache /var/cache/market-images
          market-images serve --root ready --bind 0.0.0.0:8080 --key-file key.hex
          market-images serve --root Samples --insecure-unsigned
        """
    )

    @Option(help: "The folder local:/// sources are served from.")
    var root: String

    @Option(name: .customLong("allow-source"), parsing: .singleValue,
            help: "An http(s) URL prefix sources may come from, e.g. https://images.example.com/; repeatable.")
    var allowedSources: [String] = []

    @Flag(help: "Allow sources on loopback, private and link-local addresses (refused by default).")
    var allowPrivateSources = false

    @Option(help: "Largest source download in bytes; the download stops as soon as it is exceeded.")
    var maxSourceBytes = 20_000_000

    @Option(help: "Seconds a source download may take.")
    var downloadTimeout = 5

    @Option(help: "http(s) sources held at once, downloading or waiting for a worker (one per source however many sizes are asked); more are answered 503.")
    var maxDownloads = 8

    @Option(help: "Address and port to listen on (port 0: any free port, printed at start).")
    var bind = "127.0.0.1:8080"

    @OptionGroup var key: ServiceKeyOptions

    @Flag(help: "Accept any signature (no key). Loopback addresses only.")
    var insecureUnsigned = false

    @Option(help: "A folder for finished outputs (default: no disk cache).")
    var cache: String?

    @Option(help: "Largest size of the disk cache in bytes.")
    var cacheSize = 1 << 30

    @Option(help: "With --cache, bytes of the most recent outputs also kept in memory (0: none).")
    var memoryCache = 64 << 20

    @Option(help: "Images processed at once (default: the number of cores).")
    var workers: Int?

    @Option(help: "Requests that may wait for a worker; more are answered 503 with Retry-After.")
    var queue = 64

    @Option(help: "No output side is larger than this, whatever the URL asks.")
    var maxOutputEdge = 4096

    @Option(help: "Refuse sources with more pixels than this, read from the header before decoding.")
    var maxPixels = PrepareOptions().maxPixels

    @Option(help: "Quality when the URL gives none.")
    var quality = 80

    @Flag(help: "Decode JPEGs straight to the output's scale, as thumbor does: about 1.25× faster, softer and blockier.")
    var fastDecode = false

    @Option(name: .customLong("preset"), parsing: .singleValue, help: "A preset NAME=OPTIONS, e.g. card=rs:fill:300:200/g:sm; repeatable.")
    var presets: [String] = []

    @Option(help: "Cache-Control max-age of images, in seconds.")
    var maxAge = 31_536_000

    @Option(help: "Seconds that requests in flight get to finish after SIGTERM.")
    var grace = 10

    @Option(help: "Seconds a connection may go without a complete request (idle, or sending one slowly) before it is closed.")
    var idleTimeout = 15

    @Option(help: "Connections held open at most; at the cap, the one idle longest is closed for a new one (default: 4096, or half the open-file limit if lower).")
    var maxConnections: Int?

    @Option(help: "Address and port of GET /metrics (Prometheus), apart from the public port; off for none.")
    var metricsBind = "127.0.0.1:9464"

    func validate() throws {
        guard FileManager.default.isDirectory(root) else { throw ValidationError("--root \(Terminal.display(root)) is not a folder") }
        _ = try sourcePrefixes()
        _ = try BindAddress(bind)
        if metricsBind != "off" { _ = try BindAddress(metricsBind, flag: "--metrics-bind") }
        _ = try connectionLimit()
        guard (1...256).contains(workers ?? 1), (0...100_000).contains(queue), (16...16_384).contains(maxOutputEdge),
              (1...100).contains(quality), cacheSize > 0, memoryCache >= 0, grace >= 0, (1...3600).contains(idleTimeout), maxAge >= 0, maxSourceBytes > 0, (1...600).contains(downloadTimeout), (1...1024).contains(maxDownloads) else {
            throw ValidationError("--workers 1–256, --queue 0–100000, --max-output-edge 16–16384, --quality 1–100, "
                + "--idle-timeout 1–3600 seconds, --download-timeout 1–600 seconds, --max-downloads 1–1024, and positive sizes")
        }
        _ = try presetTable()
    }

    /// The `--allow-source` prefixes, each with a path (at least the `/` ending its host), no query,
    /// and nothing a normalised URL would drop or refuse.
    private func sourcePrefixes() throws -> [SourceURL] {
        try allowedSources.map { text in
            guard let prefix = SourceURL(text), prefix.query == nil, !text.contains("#"),
                  text.dropFirst(prefix.scheme.count + 3).contains("/") else {
                throw ValidationError("--allow-source takes an http(s) URL prefix ending its host with /, e.g. https://images.example.com/; got \(Terminal.display(text))")
            }
            return prefix
        }
    }

    private func presetTable() throws -> [String: String] {
        var table = ProcessingOptions.standardPresets
        for text in presets {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--preset takes NAME=OPTIONS; got \"\(text)\"") }
            table[parts[0]] = parts[1]
        }
        // Every preset must parse on its own, so a bad one fails at start, not on a request.
        for (name, options) in table {
            do { _ = try ImageRequestPath.parse("/" + options + "/plain/local:///x.jpg", presets: table) } catch {
                throw ValidationError("--preset \(name): \(error)")
            }
        }
        return table
    }

    func run() async throws {
        let address = try BindAddress(bind)
        let signature = try signatureCheck(address)
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "market-images")
        logger.logLevel = .info
        let metrics = ServiceMetrics()
        metrics.bootstrap()
        var limits = ImageProcessor.Limits()
        limits.defaultQuality = quality
        limits.maxOutputEdge = maxOutputEdge
        limits.maxPixels = maxPixels
        limits.draftDecode = fastDecode
        let responder = ThumbnailResponder(
            settings: ServeSettings(presets: try presetTable(), maxAge: maxAge), signature: signature,
            sources: try LocalSourceRoot(root),
            remote: RemoteSources(prefixes: try sourcePrefixes(), allowInternal: allowPrivateSources, maxBytes: maxSourceBytes,
                                  timeout: .seconds(Int64(downloadTimeout)), maxDownloads: maxDownloads),
            processor: ImageProcessor(limits: limits),
            pool: ImageWorkPool(workers: workers ?? ProcessInfo.processInfo.activeProcessorCount, queueLimit: queue),
            cache: try cache.map { try DiskCache(folder: $0, sizeLimit: cacheSize) },
            memory: cache != nil && memoryCache > 0 ? MemoryCache(sizeLimit: memoryCache) : nil, metrics: metrics, logger: logger)
        let limit = ConnectionLimit(maximum: try connectionLimit())
        let metricsListener = try metricsBind == "off" ? nil : BindAddress(metricsBind, flag: "--metrics-bind").application(
            MetricsResponder(metrics: metrics, pool: responder.pool, cache: responder.cache, connections: limit), logger: logger
        ) { url in Terminal.standardError.write("metrics on \(url)/metrics\n") }
        try await address.serve(responder, grace: grace, idleTimeout: idleTimeout, limit: limit, beside: metricsListener.map { [$0] } ?? [],
                                logger: logger) { url in
            Terminal.standardError.write("listening on \(url)\n")
        }
    }

    /// `--max-connections`, or the default; below the open-file limit either way, with room for the
    /// files, downloads and cache entries the connections' requests open.
    private func connectionLimit() throws -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let files = Int(clamping: limit.rlim_cur)
        guard let maxConnections else { return max(16, min(4096, files / 2)) }
        guard maxConnections >= 1, maxConnections <= files - 64 else {
            throw ValidationError("--max-connections must be 1 to \(max(1, files - 64)) (the open-file limit, ulimit -n, is \(files), "
                + "and requests need descriptors of their own); raise the limit (LimitNOFILE= in a systemd unit) or lower --max-connections")
        }
        return maxConnections
    }

    /// The key and salt, or no check at all when asked for and safe (a loopback address).
    private func signatureCheck(_ address: BindAddress) throws -> SignatureCheck {
        if let material = try key.load() { return SignatureCheck(key: material.key, salt: material.salt) }
        guard insecureUnsigned else {
            throw ValidationError("no key: set $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT (hex) or --key-file; "
                + "--insecure-unsigned serves unsigned URLs on a loopback address only")
        }
        guard address.isLoopback else {
            throw ValidationError("--insecure-unsigned binds loopback only (127.0.0.1, ::1); \(address.host) is not")
        }
        Terminal.standardError.warning("no key: any signature is accepted (--insecure-unsigned); loopback only")
        return SignatureCheck(key: nil, salt: Data())
    }
}

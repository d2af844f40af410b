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

        EXAMPLES:
          market-images serve --root ready --cache /var/cache/market-images
          market-images serve --root ready --bind 0.0.0.0:8080 --key-file key.hex
          market-images serve --root Samples --insecure-unsigned
          market-images serve --only-presets --allow-source https://img.example.com/
        """
    )

    @Option(help: "The folder local:/// sources are served from (optional with --allow-source).")
    var root: String?

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

    @Option(help: ArgumentHelp("With --cache, seconds a downloaded source is used without asking its origin (0: revalidate on every request).", valueName: "seconds"))
    var sourceTTL = ServiceConfiguration().sourceTTL

    @Option(help: ArgumentHelp("Seconds past --source-ttl a source's copy is still served while its origin fails.", valueName: "seconds"))
    var sourceStaleIfError = ServiceConfiguration().sourceStaleIfError

    @Option(help: "Largest size of the source cache (CACHE/sources) in bytes.")
    var sourceCacheSize = ServiceConfiguration().sourceCacheSize

    @Option(help: ArgumentHelp("An image served, at the size asked, when a source is missing or fails.", valueName: "file"))
    var fallbackImage: String?

    @Option(help: "The status sent with the fallback image (default: the failure's own, e.g. 404).")
    var fallbackStatus: Int?

    @Option(help: ArgumentHelp("max-age of a fallback answer, in seconds.", valueName: "seconds"))
    var fallbackMaxAge = ServiceConfiguration().fallbackMaxAge

    @Option(help: "Address and port to listen on (port 0: any free port, printed at start).")
    var bind = "127.0.0.1:8080"

    @OptionGroup var key: ServiceKeyOptions

    @Flag(help: "Accept any signature (no key). Loopback addresses only.")
    var insecureUnsigned = false

    @Flag(help: "URLs may name only presets, dpr 1–4 and a format; then no key is needed on any address (apps need not hold one).")
    var onlyPresets = false

    @Option(help: "Bytes of the HMAC a signature carries, 1–32 (imgproxy's IMGPROXY_SIGNATURE_SIZE).")
    var signatureSize = 32

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

    @Flag(help: "Decode JPEGs straight to the output's scale, as thumbor does: faster (BENCHMARKS.md, stages section), softer and blockier.")
    var fastDecode = false

    @Flag(help: "Baseline JPEGs instead of progressive (progressive is a few percent smaller and shows while it loads).")
    var baselineJPEG = false

    @Option(help: ArgumentHelp("AV1 effort for AVIF, 0 (fastest) to 9: higher is smaller and far slower (BENCHMARKS.md).", valueName: "n"))
    var avifEffort = 0

    @Flag(help: "Answer AVIF to clients whose Accept lists image/avif (before WebP) when the URL names no format; smaller, slower to encode.")
    var autoAvif = false

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
        let problems = try serviceConfiguration().problems
        guard problems.isEmpty else {
            throw ValidationError(problems.map { "--\($0.setting): \($0.message)" }.joined(separator: "\n"))
        }
    }

    /// The flags as the service's configuration; a flag that cannot even be read is a usage error here.
    private func serviceConfiguration() throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.root = root
        configuration.allowedSources = allowedSources
        configuration.allowPrivateSources = allowPrivateSources
        configuration.maxSourceBytes = maxSourceBytes
        configuration.downloadTimeout = .seconds(downloadTimeout)
        configuration.maxDownloads = maxDownloads
        configuration.sourceTTL = sourceTTL
        configuration.sourceStaleIfError = sourceStaleIfError
        configuration.sourceCacheSize = sourceCacheSize
        configuration.fallbackImage = fallbackImage
        configuration.fallbackStatus = fallbackStatus
        configuration.fallbackMaxAge = fallbackMaxAge
        configuration.keys = try key.load().map { SigningKey(key: $0.key, salt: $0.salt) }
        configuration.signatureSize = signatureSize
        configuration.onlyPresets = onlyPresets
        guard !configuration.keys.isEmpty || insecureUnsigned || onlyPresets else {
            throw ValidationError("no key: set $MARKET_IMAGES_KEY and $MARKET_IMAGES_SALT (hex) or --key-file; "
                + "--only-presets serves unsigned preset URLs on any address, --insecure-unsigned any URL on loopback only")
        }
        if let workers { configuration.workers = workers }
        configuration.queue = queue
        configuration.limits.defaultQuality = quality
        configuration.limits.maxOutputEdge = maxOutputEdge
        configuration.limits.maxPixels = maxPixels
        configuration.limits.draftDecode = fastDecode
        configuration.limits.autoAVIF = autoAvif
        configuration.limits.encoder = EncoderSettings(progressive: !baselineJPEG, avifEffort: avifEffort)
        configuration.presets = try presets.reduce(into: [:]) { table, text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--preset takes NAME=OPTIONS; got \"\(text)\"") }
            table[parts[0]] = parts[1]
        }
        configuration.cacheFolder = cache
        configuration.cacheSize = cacheSize
        configuration.memoryCache = memoryCache
        configuration.bind = try address(bind, "--bind")
        configuration.metricsBind = metricsBind == "off" ? nil : try address(metricsBind, "--metrics-bind")
        configuration.maxAge = maxAge
        configuration.grace = .seconds(grace)
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.maxConnections = maxConnections
        return configuration
    }

    private func address(_ text: String, _ flag: String) throws -> ServiceAddress {
        guard let address = ServiceAddress(text) else { throw ValidationError("\(flag) takes HOST:PORT, e.g. 127.0.0.1:8080; got \(Terminal.display(text))") }
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

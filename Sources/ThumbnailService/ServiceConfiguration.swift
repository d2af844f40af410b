import Foundation
import ImagePipeline

/// Everything the thumbnail service is started with, as one value: what `serve`'s flags fill in, and
/// what another Swift server sets to mount the service. Each setting is named as its flag is
/// (`max-connections`), so a problem can be reported in the caller's own terms.
public struct ServiceConfiguration: Sendable {
    // Sources.
    /// The folder `local:///` sources are served from; nil serves no local sources.
    public var root: String?
    /// `http(s)` URL prefixes sources may come from.
    public var allowedSources: [String] = []
    /// Allow sources on loopback, private and link-local addresses.
    public var allowPrivateSources = false
    /// Largest source, downloaded or local.
    public var maxSourceBytes = 20_000_000
    public var downloadTimeout: Duration = .seconds(5)
    /// Downloaded sources held at once (see `RemoteSources`).
    public var maxDownloads = 8
    /// Downloads from one origin (scheme, host and port) at once, so a slow origin cannot take every
    /// slot from the others; nil: half of `maxDownloads`, at least 1.
    public var maxDownloadsPerOrigin: Int?
    /// Seconds a downloaded source answers for itself without asking its origin. A day: the
    /// OpenMarket servers give every uploaded image a new URL (G2/G3 cannot change a product's
    /// images), so the bytes behind a URL do not change; the limit only bounds how long a deleted
    /// image keeps being rendered in sizes not yet cached, and costs one conditional GET a day.
    public var sourceTTL = 86_400
    /// Seconds past the TTL a copy is still served while its origin fails (errors and timeouts,
    /// not 404), as `stale-if-error`.
    public var sourceStaleIfError = 86_400
    /// Largest size of the source cache (`<cache>/sources`) in bytes.
    public var sourceCacheSize = 1 << 30
    /// An image served, at the size asked, in place of a source that is missing or fails.
    public var fallbackImage: String?
    /// The status sent with the fallback image; nil keeps the failure's own (404, 502, …).
    public var fallbackStatus: Int?
    /// `max-age` of a fallback answer: short, since the real image may appear.
    public var fallbackMaxAge = 60
    /// The watermark `wm` draws when a URL gives no `wmu`: a file, or a source name (`local:///…`,
    /// an `http(s)` URL under an allowed prefix); nil for none (`wm` alone is then 400).
    public var watermark: String?
    /// Every watermark's opacity is multiplied by this (imgproxy's `IMGPROXY_WATERMARK_OPACITY`).
    public var watermarkOpacity = 1.0

    // Security.
    /// The keys and salts of signed URLs, any of which signs (several while keys are rotated).
    /// Without any, the service refuses to start unless `onlyPresets` or `allowUnsigned` says what
    /// it may then answer.
    public var keys: [SigningKey] = []
    /// With no keys, accept any URL unsigned (`--insecure-unsigned`): the host's explicit choice,
    /// knowing who can reach it. Standalone (`run`) it must listen on loopback; a host that mounts
    /// the service decides for its own address.
    public var allowUnsigned = false
    /// Bytes of the HMAC a signature carries (imgproxy's `IMGPROXY_SIGNATURE_SIZE`): 1–32.
    public var signatureSize = 32
    /// A URL's own options may only be presets, a `dpr` of `presetDPRs` and the format: the outputs
    /// per source are few and known, so apps that cannot hold a key may use unsigned URLs, on any address.
    public var onlyPresets = false
    /// A URL may give imgproxy's security options (`msr`, `msfs`, `mrd`, `maf`, `mafr`), which only
    /// ever lower the limits here (imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`).
    public var allowSecurityOptions = false
    /// With `onlyPresets`, the `dpr` values a URL may give (the screens the apps run on).
    public var presetDPRs = ProcessingOptions.presetDPRs.sorted()

    /// What the service answers, in a sentence for its start-up log: the operator sees it at once.
    public var accepts: String {
        if !keys.isEmpty { return "signed URLs (\(keys.count) key\(keys.count == 1 ? "" : "s"))" + (onlyPresets ? ", naming presets only" : "") }
        if onlyPresets { return "unsigned URLs naming presets only" }
        return "any URL unsigned (allowUnsigned)"
    }

    // Processing.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// What all renders at once may hold (`--render-memory`), by their estimates; at least
    /// `limits.maxRenderMemory`, so any render admitted alone fits.
    public var renderMemory = 512 << 20
    public var queue = 64
    public var limits = ImageProcessor.Limits()
    /// More presets, `name: options`, beside the standard ones.
    public var presets: [String: String] = [:]

    // Caches.
    public var cacheFolder: String?
    public var cacheSize = 1 << 30
    /// With a cache folder, bytes of recent outputs also kept in memory.
    public var memoryCache = 64 << 20
    /// The time source's ages and cache recency are measured by (tests pass their own).
    public var clock: @Sendable () -> Date = Date.init

    // HTTP.
    public var bind = ServiceAddress(host: "127.0.0.1", port: 8080)
    /// Where `GET /metrics` is served; nil for nowhere.
    public var metricsBind: ServiceAddress? = ServiceAddress(host: "127.0.0.1", port: 9464)
    /// `Cache-Control: max-age` of images, in seconds.
    public var maxAge = 31_536_000
    public var grace: Duration = .seconds(10)
    public var idleTimeout: Duration = .seconds(15)
    /// Connections held open at most; nil: 4096, or half the open-file limit if lower.
    public var maxConnections: Int?

    public init() {}

    /// One wrong setting, named as its flag.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var setting: String
        public var message: String
        public var description: String { "\(setting): \(message)" }
    }

    /// Every wrong setting, each once; empty when the service can start.
    public var problems: [Problem] {
        var problems: [Problem] = []
        func check(_ ok: Bool, _ setting: String, _ message: @autoclosure () -> String) {
            if !ok { problems.append(Problem(setting: setting, message: message())) }
        }
        if let root { check(FileManager.default.isDirectory(root), "root", "\(root) is not a folder") }
        check(root != nil || !allowedSources.isEmpty, "root", "give a folder to serve, or --allow-source prefixes, or both")
        for text in allowedSources {
            guard let prefix = SourceURL(prefix: text) else {
                check(false, "allow-source", "takes an http(s) URL prefix ending its host with /, e.g. https://images.example.com/; got \(text)")
                continue
            }
            // Refused now rather than on every request: each would be "not under an allowed prefix".
            let privateAddress = SourceAddress.resolve(prefix.host)?.first(where: SourceAddress.isInternal)
            check(allowPrivateSources || privateAddress == nil, "allow-source",
                  "\(text) is on a private address (\(privateAddress ?? "")); add --allow-private-sources to fetch from it")
        }
        check(!keys.isEmpty || onlyPresets || allowUnsigned, "insecure-unsigned",
              "no key: set keys (--key-file, MARKET_IMAGES_KEY and _SALT), onlyPresets for unsigned preset URLs, or allowUnsigned for any URL unsigned")
        check(!keys.isEmpty || onlyPresets || !allowUnsigned || bind.isLoopback, "insecure-unsigned",
              "binds loopback only (127.0.0.1, ::1); \(bind.host) is not. Set a key, or --only-presets for unsigned preset URLs on any address")
        check(!presetDPRs.isEmpty && presetDPRs.allSatisfy(ProcessingOptions.dprRange.contains), "preset-dprs",
              "takes one or more of 0.01 to 8, comma-separated")
        check((1...32).contains(signatureSize), "signature-size", "takes 1 to 32 (bytes of the HMAC)")
        check((1...256).contains(workers), "workers", "takes 1 to 256")
        check((0...100_000).contains(queue), "queue", "takes 0 to 100000")
        check((16...16_384).contains(limits.maxOutputEdge), "max-output-edge", "takes 16 to 16384")
        check(limits.maxPixels > 0, "max-pixels", "must be positive")
        check((1...10_000).contains(limits.maxAnimationFrames), "max-animation-frames", "takes 1 (stills only) to 10000")
        check(limits.maxAnimationFramePixels.map { $0 > 0 } ?? true, "max-animation-frame-resolution", "must be positive")
        check(limits.autoQualityMaxPixels.map { $0 > 0 } ?? true, "auto-quality-max-resolution", "takes 0 (no limit) or more pixels")
        check(limits.maxRenderMemory >= 16 << 20, "max-render-memory", "takes at least 16777216 (16 MB)")
        check(renderMemory >= limits.maxRenderMemory, "render-memory", "must be at least --max-render-memory (\(limits.maxRenderMemory))")
        check((1...100).contains(limits.defaultQuality), "quality", "takes 1 to 100")
        check(limits.formatQuality.values.allSatisfy((1...100).contains), "format-quality", "takes FORMAT=QUALITY pairs, each quality 1 to 100")
        check(EncoderSettings.avifEffortRange.contains(limits.encoder.avifEffort), "avif-effort", "takes 0 (fastest) to 9")
        check(EncoderSettings.jxlEffortRange.contains(limits.encoder.jxlEffort), "jxl-effort", "takes 3 (fastest) to 9")
        check(cacheSize > 0, "cache-size", "must be positive")
        check(memoryCache >= 0, "memory-cache", "must be 0 or more")
        check(maxSourceBytes > 0, "max-source-bytes", "must be positive")
        check(downloadTimeout >= .seconds(1) && downloadTimeout <= .seconds(600), "download-timeout", "takes 1 to 600 seconds")
        check(limits.renderTimeout.map { $0 > .zero && $0 <= .seconds(600) } ?? true, "render-timeout", "takes 1 to 600 seconds")
        check((1...1024).contains(maxDownloads), "max-downloads", "takes 1 to 1024")
        if let maxDownloadsPerOrigin {
            check((1...max(1, maxDownloads)).contains(maxDownloadsPerOrigin), "max-downloads-per-origin", "takes 1 to --max-downloads (\(maxDownloads))")
        }
        check(maxAge >= 0, "max-age", "must be 0 or more")
        check(sourceTTL >= 0, "source-ttl", "must be 0 or more (0 revalidates every request)")
        check(sourceStaleIfError >= 0, "source-stale-if-error", "must be 0 or more")
        check(sourceCacheSize > 0, "source-cache-size", "must be positive")
        if let fallbackImage { check(FileManager.default.isReadableFile(atPath: fallbackImage), "fallback-image", "\(fallbackImage) cannot be read") }
        check(fallbackStatus.map { (200...599).contains($0) } ?? true, "fallback-status", "takes an HTTP status, 200 to 599")
        check(fallbackMaxAge >= 0, "fallback-max-age", "must be 0 or more")
        if let watermark, !watermark.contains("://") {
            check(FileManager.default.isReadableFile(atPath: watermark), "watermark", "\(watermark) cannot be read")
        }
        check((0...1).contains(watermarkOpacity), "watermark-opacity", "takes 0 to 1")
        check(grace >= .zero, "grace", "must be 0 or more")
        check(idleTimeout >= .seconds(1) && idleTimeout <= .seconds(3600), "idle-timeout", "takes 1 to 3600 seconds")
        let files = Self.openFileLimit
        if let maxConnections {
            check((1...max(1, files - 64)).contains(maxConnections), "max-connections",
                  "must be 1 to \(max(1, files - 64)) (the open-file limit, ulimit -n, is \(files), and requests need descriptors of their own); "
                      + "raise the limit (LimitNOFILE= in a systemd unit) or lower --max-connections")
        }
        let table = ProcessingOptions.standardPresets.merging(presets) { $1 }
        for (name, options) in presets.sorted(by: { $0.key < $1.key }) {
            do { _ = try ImageRequestPath.parse("/" + options + "/plain/local:///x.jpg", presets: table, allowSecurityOptions: true) } catch {
                check(false, "preset", "\(name): \(error)")
            }
        }
        return problems
    }

    /// The configuration, or its first problem.
    public func validated() throws(Problem) -> ServiceConfiguration {
        if let problem = problems.first { throw problem }
        return self
    }

    /// The standard presets and these (checked by `problems`).
    var presetTable: [String: String] { ProcessingOptions.standardPresets.merging(presets) { $1 } }

    var connectionLimit: Int { maxConnections ?? max(16, min(4096, Self.openFileLimit / 2)) }

    static var openFileLimit: Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(clamping: limit.rlim_cur)
    }
}

extension FileManager {
    func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}

import Foundation
import ImagePipeline

/// Everything the thumbnail service is started with, as one value: what `serve`'s flags fill in, and
/// what another Swift server sets to mount the service. Each setting is named as its flag is
/// (`max-connections`), so a problem can be reported in the caller's own terms.
public struct ServiceConfiguration: Sendable {
    // Sources.
    /// The folder `local:///` sources are served from; nil serves no local sources.
    public var root: String?
    /// `http(s)` URL prefixes sources may come from, and `local://` ones narrowing the root's files
    /// (imgproxy's `IMGPROXY_ALLOWED_SOURCES`); `*` matches within a host's label or a path's segment.
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
    /// Serve `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`) from buckets `allowedSources`
    /// names (`s3://bucket/`, or `s3://` for any).
    public var useS3 = false
    /// When not empty, the only buckets `s3://` sources come from, within `allowedSources`
    /// (imgproxy's `IMGPROXY_S3_ALLOWED_BUCKETS`).
    public var s3AllowedBuckets: [String] = []
    /// Buckets no `s3://` source comes from, whatever `allowedSources` allows (imgproxy's
    /// `IMGPROXY_S3_DENIED_BUCKETS`).
    public var s3DeniedBuckets: [String] = []
    /// The S3 API's URL (`http://127.0.0.1:9000`); nil: AWS's endpoint for `s3Region`.
    public var s3Endpoint: String?
    /// The region requests are signed for; imgproxy's default.
    public var s3Region = "us-west-1"
    /// With an endpoint, `endpoint/bucket/key` rather than `bucket.endpoint/key`.
    public var s3PathStyle = true
    /// The key S3 requests are signed with (`AWSCredentials`); nil: unsigned, for public buckets.
    public var s3Credentials: AWSCredentials?
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
    /// URLs lie under this path (`/img/{signature}/…`, imgproxy's `IMGPROXY_PATH_PREFIX`), which
    /// signatures do not cover; nil: at the root.
    public var pathPrefix: String?

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
    public var limits = RenderLimits()
    /// More presets, `name: options`, beside the standard ones.
    public var presets: [String: String] = [:]

    // Caches.
    public var cacheFolder: String?
    public var cacheSize = 1 << 30
    /// With a cache folder or bucket, bytes of recent outputs also kept in memory.
    public var memoryCache = 64 << 20
    /// What a read or a write of an `s3://` cache may take before the request goes on without it.
    public var cacheTimeout: Duration = .seconds(1)
    /// While the bucket cache fails, how often a request tries it again (`StoreHealth`).
    var storeProbeInterval: Duration = .seconds(1)
    /// How requests reach the object store; tests wrap the real one to add faults.
    var objectStoreTransport: any ObjectStoreTransport = HTTPObjectStoreTransport()
    /// The time source's ages and cache recency are measured by (tests pass their own).
    public var clock: @Sendable () -> Date = Date.init

    // HTTP.
    public var bind = ServiceAddress(host: "127.0.0.1", port: 8080)
    /// Where `GET /metrics` is served; nil for nowhere.
    public var metricsBind: ServiceAddress? = ServiceAddress(host: "127.0.0.1", port: 9464)
    /// The prefix of the metrics under imgproxy's names (`IMGPROXY_PROMETHEUS_NAMESPACE`):
    /// `imgproxy` gives `imgproxy_requests_total`; nil, `requests_total`.
    public var metricsNamespace: String?
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

    /// Every wrong setting, each once; empty when the service can start. Each setting's own bounds are
    /// its entry's in `ServiceSetting.all`; the rules between settings are here.
    public var problems: [Problem] {
        var problems = ServiceSetting.all.compactMap { setting in setting.check(self).map { Problem(setting: setting.name, message: $0) } }
        func check(_ ok: Bool, _ setting: String, _ message: @autoclosure () -> String) {
            if !ok { problems.append(Problem(setting: setting, message: message())) }
        }
        check(root != nil || !allowedSources.isEmpty, "root", "give a folder to serve, or --allow-source prefixes, or both")
        check(!keys.isEmpty || onlyPresets || allowUnsigned, "insecure-unsigned",
              "no key: set keys (--key-file, MARKET_IMAGES_KEY and _SALT), onlyPresets for unsigned preset URLs, or allowUnsigned for any URL unsigned")
        check(!keys.isEmpty || onlyPresets || !allowUnsigned || bind.isLoopback, "insecure-unsigned",
              "binds loopback only (127.0.0.1, ::1); \(bind.host) is not. Set a key, or --only-presets for unsigned preset URLs on any address")
        check(s3Credentials != nil || cacheFolder.flatMap(BucketCache.location) == nil, "cache",
              "\(cacheFolder ?? "") needs credentials to write the bucket: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the shared credentials file (~/.aws/credentials)")
        check(s3PathStyle || !(s3Endpoint.map(ObjectStore.isIPAddress) ?? false), "s3-path-style",
              "off asks for BUCKET.HOST/KEY, and the host of --s3-endpoint \(s3Endpoint ?? "") is an IP address, which no bucket name can go before: "
                + "leave path style on (IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=true) or give the endpoint by a host name")
        check(renderMemory >= limits.maxRenderMemory, "render-memory", "must be at least --max-render-memory (\(limits.maxRenderMemory))")
        check(!(metricsBind.map(bind.overlaps) ?? false), "metrics-bind",
              "is the service's own port (--bind \(bind)); metrics need a port of their own, e.g. 127.0.0.1:9464")
        return problems
    }

    /// The configuration, or its first problem.
    public func validated() throws(Problem) -> ServiceConfiguration {
        if let problem = problems.first { throw problem }
        return self
    }

    /// The standard presets and these (checked by `problems`).
    public var presetTable: [String: String] { ProcessingOptions.standardPresets.merging(presets) { $1 } }

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

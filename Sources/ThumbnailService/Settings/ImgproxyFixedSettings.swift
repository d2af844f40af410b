import Foundation
import MarketUploader

/// imgproxy's settings that no `ServiceSetting` reads, each with why, for the warning at start and
/// the README's migration table: the switches for what `serve` always does one way (the value it
/// honours is accepted quietly, `IMGPROXY_USE_ETAG=true`; the other is named as ignored), and the
/// rest of imgproxy's open-source names (`ImgproxyNames`), by group, quiet only when switched off. A name in neither table is no
/// imgproxy setting at all, and the nearest that is is suggested.
enum ImgproxyFixedSettings {
    private static let privateSources = "--allow-private-sources allows loopback, private and link-local addresses together"
    private static let webp = "WebP is always sent to clients whose Accept lists it"

    /// Each variable, the value `serve` always has, and why.
    static let table: [String: (value: Bool, reason: String)] = [
        "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": (false, privateSources),
        "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": (false, privateSources),
        "IMGPROXY_AUTO_WEBP": (true, webp),
        "IMGPROXY_ENABLE_WEBP_DETECTION": (true, webp),
        "IMGPROXY_USE_ETAG": (true, "every image has an ETag"),
        "IMGPROXY_USE_LAST_MODIFIED": (true, "local sources always have Last-Modified"),
        "IMGPROXY_STRIP_METADATA": (true, "metadata is always stripped"),
        "IMGPROXY_KEEP_COPYRIGHT": (false, "metadata is always stripped, the copyright too"),
        "IMGPROXY_STRIP_COLOR_PROFILE": (true, "outputs are always sRGB without a profile"),
        "IMGPROXY_AUTO_ROTATE": (true, "outputs are always turned upright by EXIF"),
        "IMGPROXY_ENFORCE_THUMBNAIL": (false, "the main image is always decoded"),
        "IMGPROXY_PRESERVE_HDR": (false, "outputs are always 8 bits a channel"),
    ]

    /// imgproxy's other open-source settings, by why `serve` does not read them; a name ending in `_`
    /// stands for every name it begins.
    static let unhonoured: [(names: [String], reason: String)] = [
        (["IMGPROXY_S3_", "IMGPROXY_USE_GCS", "IMGPROXY_GCS_", "IMGPROXY_USE_ABS", "IMGPROXY_ABS_", "IMGPROXY_USE_SWIFT", "IMGPROXY_SWIFT_"],
         "s3:// sources take the endpoint, region, path style and AWS keys only (no assumed roles, access points or decryption; --allow-source s3://BUCKET/ names the buckets); GCS, Azure and Swift sources are not served"),
        (["IMGPROXY_LOG_FORMAT", "IMGPROXY_LOG_LEVEL", "IMGPROXY_SYSLOG_", "IMGPROXY_SENTRY_", "IMGPROXY_AIRBRAKE_", "IMGPROXY_BUGSNAG_", "IMGPROXY_HONEYBADGER_",
          "IMGPROXY_NEW_RELIC_", "IMGPROXY_DATADOG_", "IMGPROXY_OPEN_TELEMETRY_", "IMGPROXY_CLOUD_WATCH_", "IMGPROXY_REPORT_DOWNLOADING_ERRORS",
          "IMGPROXY_DEVELOPMENT_ERRORS_MODE", "IMGPROXY_ENABLE_DEBUG_HEADERS"],
         "the service logs one line per request to stderr (journald, the container's log) and counts in /metrics; errors name their kind in the answer"),
        (["IMGPROXY_BASE_URL", "IMGPROXY_URL_REPLACEMENTS", "IMGPROXY_SOURCE_URL_QUERY_SEPARATOR", "IMGPROXY_BASE64_URL_INCLUDES_FILENAME",
          "IMGPROXY_ARGUMENTS_SEPARATOR", "IMGPROXY_PRESETS_SEPARATOR", "IMGPROXY_SOURCE_URL_ENCRYPTION_KEY", "IMGPROXY_MAX_CHAINED_PIPELINES"],
         "URLs and presets have imgproxy's standard grammar only: a source is a whole local:/// name or http(s) URL, arguments split by :, presets by ,"),
        (["IMGPROXY_SECRET", "IMGPROXY_TRUSTED_SIGNATURES", "IMGPROXY_ALLOWED_PROCESSING_OPTIONS", "IMGPROXY_ALLOWED_INFO_OPTIONS", "IMGPROXY_INFO_ONLY_PRESETS"],
         "who may ask for what is the signature's and --only-presets' (which info URLs follow too); put other access rules in the proxy in front"),
        (["IMGPROXY_ALLOW_ORIGIN", "IMGPROXY_SET_CANONICAL_HEADER", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH", "IMGPROXY_RETURN_ATTACHMENT",
          "IMGPROXY_ETAG_BUSTER", "IMGPROXY_LAST_MODIFIED_BUSTER", "IMGPROXY_HEALTH_CHECK_PATH"],
         "headers are the service's own: Cache-Control from --max-age, ETags that change by themselves when a setting changes bytes, /health; add others in the proxy in front"),
        (["IMGPROXY_COOKIE_PASSTHROUGH", "IMGPROXY_COOKIE_PASSTHROUGH_ALL", "IMGPROXY_COOKIE_BASE_URL", "IMGPROXY_USER_AGENT", "IMGPROXY_MAX_REDIRECTS",
          "IMGPROXY_IGNORE_SSL_VERIFICATION", "IMGPROXY_DOWNLOAD_BUFFER_SIZE"],
         "origins are asked without the client's cookies, with certificates checked, following at most 3 redirects, each checked against --allow-source"),
        (["IMGPROXY_NETWORK", "IMGPROXY_SO_REUSEPORT", "IMGPROXY_READ_REQUEST_TIMEOUT", "IMGPROXY_WRITE_RESPONSE_TIMEOUT", "IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT"],
         "the service listens on TCP at --bind; --idle-timeout bounds a request's arrival and an idle connection alike"),
        (["IMGPROXY_MALLOC", "IMGPROXY_FREE_MEMORY_INTERVAL", "IMGPROXY_BUFFER_POOL_CALIBRATION_THRESHOLD", "IMGPROXY_FAIL_ON_DEPRECATION"],
         "memory is bounded by --render-memory and --max-render-memory, estimated per render before decoding"),
        (["IMGPROXY_SVG_UNLIMITED", "IMGPROXY_SANITIZE_SVG", "IMGPROXY_ALWAYS_RASTERIZE_SVG"], "SVG sources are never decoded (an allow-list of loaders)"),
        (["IMGPROXY_FALLBACK_IMAGE_DATA", "IMGPROXY_FALLBACK_IMAGE_URL", "IMGPROXY_WATERMARK_DATA"], "give the image as a file (--fallback-image, --watermark)"),
        (["IMGPROXY_ENFORCE_WEBP", "IMGPROXY_ENFORCE_AVIF", "IMGPROXY_ENFORCE_JXL", "IMGPROXY_ENABLE_CLIENT_HINTS"],
         "a format the URL names is kept; Accept chooses only when it names none, and sizes come from the URL's dpr"),
        (["IMGPROXY_PNG_INTERLACED", "IMGPROXY_PNG_QUANTIZE", "IMGPROXY_PNG_QUANTIZATION_COLORS", "IMGPROXY_PNG_UNLIMITED", "IMGPROXY_WEBP_EFFORT",
          "IMGPROXY_WEBP_PRESET", "IMGPROXY_USE_LINEAR_COLORSPACE", "IMGPROXY_DISABLE_SHRINK_ON_LOAD", "IMGPROXY_SKIP_PROCESSING_FORMATS"],
         "encoders and resampling have fixed, measured settings (BENCHMARKS.md); skp is per URL"),
    ]

    /// The kinds of imgproxy Pro's result cache (`IMGPROXY_CACHE_USE`) that serve has, each with the
    /// variable saying where the cache is and what that is read as.
    static let cacheKinds: [String: (variable: String, readAs: String)] = [
        "s3": ("IMGPROXY_CACHE_BUCKET", "the bucket of the cache (read as --cache s3://BUCKET/PREFIX)"),
        "fs": ("IMGPROXY_CACHE_FS_ROOT", "the folder of the cache (read as --cache FOLDER)"),
    ]

    /// Why `serve` refuses to start with `variable` set to `value` (other variables by name): an
    /// imgproxy Pro result cache it has no kind of, or one on another S3 API than the sources' (serve
    /// reads both through one, `--s3-endpoint` and `--s3-region`). A cache asked for is never dropped.
    static func refusal(_ variable: String, value: String, variable other: (String) -> String?) -> String? {
        switch variable {
        case "IMGPROXY_CACHE_USE":
            let kind = value.lowercased()
            guard let place = cacheKinds[kind] else {
                return "asks for imgproxy Pro's \(ServerText.printable(value)) cache; serve's result cache is a folder or an S3 bucket: "
                    + "give --cache FOLDER or --cache s3://BUCKET/PREFIX (MARKET_IMAGES_CACHE) and unset it"
            }
            return other(place.variable) == nil ? "is \(kind), which needs \(place.variable): \(place.readAs)" : nil
        case "IMGPROXY_CACHE_S3_ENDPOINT", "IMGPROXY_CACHE_S3_REGION":
            let sources = variable.replacingOccurrences(of: "_CACHE_S3_", with: "_S3_")
            let endpoint = variable.hasSuffix("ENDPOINT")
            // With s3:// sources on and the sources' own name unset, imgproxy reads them from AWS's endpoint, and its
            // region from the AWS SDK's names (the table's for --s3-region), else its default.
            let useS3 = ServiceSetting.named("use-s3")!, s3Region = ServiceSetting.named("s3-region")!
            let sourcesOn = ([useS3.variable] + useS3.imgproxy.map(\.variable)).lazy.compactMap(other).first.flatMap(ServiceSetting.switchValue) ?? false
            let region = s3Region.imgproxy.map(\.variable).filter { !$0.hasPrefix("IMGPROXY_") }.lazy.compactMap(other).first ?? s3Region.defaultText ?? ""
            guard let theirs = other(sources) ?? (sourcesOn ? (endpoint ? "AWS's endpoint" : region) : nil) else { return nil }
            let same = endpoint ? Self.trimmed(theirs) == Self.trimmed(value) : theirs == value
            return same ? nil : "differs from the s3:// sources' \(ServerText.printable(theirs)) (\(sources)): serve reads s3:// sources and its bucket cache "
                + "through one S3 API (--s3-endpoint, --s3-region); give \(sources) the same value, or run the cache's bucket on the sources' store"
        default:
            return nil
        }
    }

    private static func trimmed(_ endpoint: String) -> String {
        String(endpoint.reversed().drop { $0 == "/" }.reversed()).lowercased()
    }

    /// Why `serve` does not read `variable`, if it is one of imgproxy's open-source names it does not.
    static func reason(_ variable: String) -> String? {
        unhonoured.first { entry in entry.names.contains { $0.hasSuffix("_") ? variable.hasPrefix($0) : variable == $0 } }?.reason
    }

    /// The warning for an imgproxy variable given with `value`, or nil when it is read or accepted.
    static func warning(_ variable: String, value: String) -> String? {
        if ServiceSetting.all.contains(where: { $0.imgproxy.contains { $0.variable == variable || $0.reads.contains(variable) } }) { return nil }
        if let (expected, reason) = table[variable] {
            guard let given = ServiceSetting.switchValue(value), given != expected else { return nil }
            return "\(variable)=\(value) is ignored: \(reason)"
        }
        if let reason = reason(variable) {
            // A switch turned off asks for none of what serve lacks (`IMGPROXY_USE_GCS=false`).
            return ServiceSetting.switchValue(value) == false ? nil : "\(variable) is imgproxy's and is ignored: \(reason)"
        }
        if ImgproxyNames.pro.contains(variable) {
            return "\(variable) is imgproxy Pro's and has no equivalent in serve; it is ignored (README, \"Moving from imgproxy\")"
        }
        let known = ImgproxyNames.openSource.union(ImgproxyNames.pro)
        return "\(variable) is not one of imgproxy's settings\(NearestName.suggestion(for: variable, among: known)) and is ignored"
    }
}

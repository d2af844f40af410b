import Foundation

/// imgproxy's configuration names that `serve` reads as synonyms of its own, in one table: an
/// operator moving from imgproxy keeps their environment file. A `MARKET_IMAGES_*` name (or the flag)
/// wins when both are given. Every other `IMGPROXY_*` name is named in a warning at start: one whose
/// value asks for what `serve` always does is accepted quietly (`IMGPROXY_USE_ETAG=true`), any other
/// is said to be ignored, and why.
enum ImgproxySettings {
    /// How one imgproxy variable maps onto `serve`.
    enum Mapping {
        /// The value of the `serve` setting named, as `serve` reads it (converted when imgproxy's units
        /// differ; nil from the conversion: `serve`'s default).
        case setting(String, convert: @Sendable (String) -> String? = { $0 })
        /// `serve` always does what `value` asks (a switch, true or false); another value is ignored
        /// with this reason.
        case always(value: Bool, reason: String)
    }

    private static let privateSources = "--allow-private-sources allows loopback, private and link-local addresses together"
    private static let webp = "WebP is always sent to clients whose Accept lists it"

    static let table: [String: Mapping] = [
        "IMGPROXY_KEY": .setting("key"),
        "IMGPROXY_SALT": .setting("salt"),
        "IMGPROXY_SIGNATURE_SIZE": .setting("signature-size"),
        "IMGPROXY_BIND": .setting("bind", convert: address),
        "IMGPROXY_PROMETHEUS_BIND": .setting("metrics-bind", convert: address),
        "IMGPROXY_TIMEOUT": .setting("render-timeout"),
        "IMGPROXY_GRACEFUL_STOP_TIMEOUT": .setting("grace"),
        "IMGPROXY_KEEP_ALIVE_TIMEOUT": .setting("idle-timeout"),
        "IMGPROXY_DOWNLOAD_TIMEOUT": .setting("download-timeout"),
        "IMGPROXY_WORKERS": .setting("workers"),
        "IMGPROXY_REQUESTS_QUEUE_SIZE": .setting("queue"),
        "IMGPROXY_MAX_CLIENTS": .setting("max-connections", convert: { $0 == "0" ? nil : $0 }),
        "IMGPROXY_TTL": .setting("max-age"),
        "IMGPROXY_MAX_SRC_RESOLUTION": .setting("max-pixels", convert: megapixels),
        "IMGPROXY_MAX_SRC_FILE_SIZE": .setting("max-source-bytes", convert: { $0 == "0" ? nil : $0 }),
        "IMGPROXY_MAX_ANIMATION_FRAMES": .setting("max-animation-frames"),
        "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": .setting("max-animation-frame-resolution", convert: { $0 == "0" ? nil : megapixels($0) }),
        "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION": .setting("auto-quality-max-resolution", convert: megapixels),
        "IMGPROXY_MAX_RESULT_DIMENSION": .setting("max-output-edge", convert: { $0 == "0" ? nil : $0 }),
        "IMGPROXY_ALLOWED_SOURCES": .setting("allow-source"),
        "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": .setting("allow-private-sources"),
        "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": .always(value: false, reason: privateSources),
        "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": .always(value: false, reason: privateSources),
        "IMGPROXY_ALLOW_SECURITY_OPTIONS": .setting("allow-security-options"),
        "IMGPROXY_LOCAL_FILESYSTEM_ROOT": .setting("root"),
        "IMGPROXY_QUALITY": .setting("quality"),
        "IMGPROXY_FORMAT_QUALITY": .setting("format-quality"),
        "IMGPROXY_JPEG_PROGRESSIVE": .setting("baseline-jpeg", convert: inverted),
        "IMGPROXY_AVIF_SPEED": .setting("avif-effort", convert: { Int($0).map { String(9 - $0) } ?? $0 }),
        "IMGPROXY_AUTO_AVIF": .setting("auto-avif"),
        "IMGPROXY_ENABLE_AVIF_DETECTION": .setting("auto-avif"),
        "IMGPROXY_AUTO_JXL": .setting("auto-jxl"),
        // libvips 8.14 takes 3 to 9; imgproxy's 1 and 2 are the fastest there is here.
        "IMGPROXY_JXL_EFFORT": .setting("jxl-effort", convert: { Int($0).map { String(max($0, 3)) } ?? $0 }),
        "IMGPROXY_PRESETS": .setting("preset"),
        "IMGPROXY_ONLY_PRESETS": .setting("only-presets"),
        "IMGPROXY_FALLBACK_IMAGE_PATH": .setting("fallback-image"),
        "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": .setting("fallback-status", convert: { $0 == "0" ? nil : $0 }),
        "IMGPROXY_FALLBACK_IMAGE_TTL": .setting("fallback-max-age"),
        "IMGPROXY_WATERMARK_PATH": .setting("watermark"),
        "IMGPROXY_WATERMARK_URL": .setting("watermark"),
        "IMGPROXY_WATERMARK_OPACITY": .setting("watermark-opacity"),
        "IMGPROXY_AUTO_WEBP": .always(value: true, reason: webp),
        "IMGPROXY_ENABLE_WEBP_DETECTION": .always(value: true, reason: webp),
        "IMGPROXY_USE_ETAG": .always(value: true, reason: "every image has an ETag"),
        "IMGPROXY_USE_LAST_MODIFIED": .always(value: true, reason: "local sources always have Last-Modified"),
        "IMGPROXY_STRIP_METADATA": .always(value: true, reason: "metadata is always stripped"),
        "IMGPROXY_KEEP_COPYRIGHT": .always(value: false, reason: "metadata is always stripped, the copyright too"),
        "IMGPROXY_STRIP_COLOR_PROFILE": .always(value: true, reason: "outputs are always sRGB without a profile"),
        "IMGPROXY_AUTO_ROTATE": .always(value: true, reason: "outputs are always turned upright by EXIF"),
        "IMGPROXY_ENFORCE_THUMBNAIL": .always(value: false, reason: "the main image is always decoded"),
        "IMGPROXY_PRESERVE_HDR": .always(value: false, reason: "outputs are always 8 bits a channel"),
    ]

    /// The imgproxy variables that give `setting`, in a stable order.
    static func variables(for setting: String) -> [String] {
        table.filter { if case .setting(setting, _) = $0.value { true } else { false } }.keys.sorted()
    }

    /// The warning for an imgproxy variable given with `value`, or nil when it is read or accepted.
    static func warning(_ variable: String, value: String) -> String? {
        switch table[variable] {
        case .setting?: return nil
        case .always(let expected, let reason)?:
            guard let given = switchValue(value), given != expected else { return nil }
            return "\(variable)=\(value) is ignored: \(reason)"
        case nil:
            return "\(variable) is imgproxy's and has no equivalent in serve; it is ignored (README, \"Moving from imgproxy\")"
        }
    }

    private static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "t", "1", "yes", "on": true
        case "false", "f", "0", "no", "off": false
        default: nil
        }
    }

    /// `:8080` (imgproxy's form for every interface) → `0.0.0.0:8080`.
    private static func address(_ text: String) -> String? { text.hasPrefix(":") ? "0.0.0.0" + text : text }

    /// Megapixels, as imgproxy counts a source's resolution, → pixels.
    private static func megapixels(_ text: String) -> String? {
        Double(text).map { String(Int(($0 * 1_000_000).rounded())) } ?? text
    }

    private static func inverted(_ text: String) -> String? { switchValue(text).map { String(!$0) } ?? text }
}

import Foundation

/// imgproxy's switches for what `serve` always does, one way: an operator's environment file may set
/// them. The value `serve` honours is accepted quietly (`IMGPROXY_USE_ETAG=true`); the other is named
/// in a warning at start, with why. Every other `IMGPROXY_*` name that no `ServiceSetting` reads is
/// named as having no equivalent.
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

    /// The warning for an imgproxy variable given with `value`, or nil when it is read or accepted.
    static func warning(_ variable: String, value: String) -> String? {
        if ServiceSetting.all.contains(where: { $0.imgproxy.contains { $0.variable == variable } }) { return nil }
        guard let (expected, reason) = table[variable] else {
            return "\(variable) is imgproxy's and has no equivalent in serve; it is ignored (README, \"Moving from imgproxy\")"
        }
        guard let given = ServiceSetting.switchValue(value), given != expected else { return nil }
        return "\(variable)=\(value) is ignored: \(reason)"
    }
}

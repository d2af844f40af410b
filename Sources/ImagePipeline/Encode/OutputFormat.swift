/// Encodings the pipeline writes. The OpenMarket server takes JPEG and PNG; WebP, AVIF, JPEG XL and
/// GIF are for thumbnails (GIF for clients and sources that keep to it, as imgproxy writes it).
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg
    case png
    case webp
    case avif
    case jxl
    case gif

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        case .gif: "image/gif"
        }
    }

    /// The format a name gives, as URLs and settings write it: its own name or its extension (`jpg`),
    /// in any case.
    public init?(name: String) {
        let name = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.rawValue == name || $0.fileExtension == name }) else { return nil }
        self = format
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        case .jxl: "jxl"
        case .gif: "gif"
        }
    }

    /// Whether it holds an animation (WebP and GIF; AVIF sequences and animated JPEG XL are not
    /// written: browsers do not play the latter).
    public var animates: Bool { self == .webp || self == .gif }

    /// JPEG has no alpha channel: transparent areas are flattened onto white, never left black. GIF
    /// keeps transparency as one palette entry (a pixel is shown or not).
    public var keepsAlpha: Bool { self != .jpeg }

    /// Whether it has a quality to lower: PNG and GIF are lossless (GIF's palette is chosen, not
    /// tuned), so a byte budget can only shrink their pixels and a perceptual target has nothing to pick.
    public var hasQuality: Bool { self != .png && self != .gif }
}

/// Encodings the pipeline writes. The OpenMarket server takes JPEG and PNG; WebP, AVIF and JPEG XL are
/// for thumbnails.
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg
    case png
    case webp
    case avif
    case jxl

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
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
        }
    }

    /// Whether it holds an animation (WebP; AVIF sequences and animated JPEG XL are not written: browsers
    /// do not play the latter).
    public var animates: Bool { self == .webp }

    /// JPEG has no alpha channel: transparent areas are flattened onto white, never left black.
    var keepsAlpha: Bool { self != .jpeg }
}

import ImagePipeline

/// Formats imgproxy writes and this service does not: a URL asking for one (`@bmp`, `f:ico`) is
/// refused by name (400 `format-not-written`), saying why and what to ask for instead, rather than
/// as a name nobody knows.
public enum UnwrittenFormat: String, Sendable, CaseIterable {
    case bmp, ico, tiff, tif, heic, heif

    /// Why it is not written.
    var reason: String {
        switch self {
        case .bmp, .ico:
            "libvips 8.14 writes \(rawValue.uppercased()) only through ImageMagick, which this service never runs on a request's work"
        case .tiff, .tif:
            "browsers other than Safari do not show TIFF, and its one directory of tags holds a camera's metadata beside the image's layout"
        case .heic, .heif:
            "libvips here writes HEIF only as AVIF (AV1), which every browser that shows HEIC also shows"
        }
    }

    /// What to ask for instead.
    var instead: OutputFormat {
        switch self {
        case .bmp, .ico, .tiff, .tif: .png
        case .heic, .heif: .avif
        }
    }
}

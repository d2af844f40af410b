import CVips
import Foundation

/// What a file's header says, read without decoding any pixels. The pixel limit is checked against
/// this, so a decompression bomb is refused before libvips allocates anything for it.
public struct ImageHeader: Sendable, Equatable, Codable {
    /// The libvips loader that claimed the file, e.g. `jpegload`, `heifload`.
    public var loader: String
    /// Stored dimensions, before EXIF orientation is applied.
    public var width: Int
    public var height: Int
    public var bands: Int
    public var pages: Int
    /// Colour space as libvips names it: `srgb`, `b-w`, `cmyk`, `rgb16`, `grey16`, ...
    public var interpretation: String
    public var bitsPerSample: Int
    public var hasAlpha: Bool
    /// EXIF orientation 1–8 (1 = upright).
    public var orientation: Int
    /// The embedded ICC profile's description, if the file carries a profile.
    public var iccProfile: String?
    public var metadata: MetadataPresence

    /// Dimensions after EXIF orientation: what a viewer shows.
    public var uprightWidth: Int { orientation >= 5 ? height : width }
    public var uprightHeight: Int { orientation >= 5 ? width : height }
    public var pixelCount: Int { width * height }

    public var format: String {
        switch loader {
        case let l where l.hasPrefix("jpeg"): "JPEG"
        case let l where l.hasPrefix("png"): "PNG"
        case let l where l.hasPrefix("webp"): "WebP"
        case let l where l.hasPrefix("heif"): "HEIF"
        case let l where l.hasPrefix("tiff"): "TIFF"
        case let l where l.hasPrefix("gif"): "GIF"
        default: loader.replacingOccurrences(of: "load", with: "").uppercased()
        }
    }

    var isCMYK: Bool { interpretation == "cmyk" }
    var isGrey: Bool { interpretation == "b-w" || interpretation == "grey16" }
    /// Whether decoding applies a colour transform to sRGB (a profile that is not greyscale, or CMYK).
    public var isCMYKOrProfiled: Bool { isCMYK || (iccProfile != nil && !isGrey) }

    public static func read(file path: String) throws(ImagePipelineError) -> ImageHeader {
        try VipsRuntime.ensureStarted()
        try checkReadable(path)
        guard vips_foreign_find_load(path) != nil else {
            throw .notAnImage(detail: VipsRuntime.takeErrorMessage().isEmpty ? "" : "unknown format")
        }
        // A loader claimed the file, so a failure from here on is damage, not a foreign format, unless
        // the loader is one libvips marks unsafe for untrusted files (ImageMagick, SVG, PDF, …).
        let image = try VipsImageHandle.make({ message in
            guard message.contains("operation is blocked") else { return .decodeFailed(message) }
            let loader = message.prefix { $0 != ":" }
            return .notAnImage(detail: "\(loader) is blocked as unsafe for files from elsewhere")
        }) { out in
            out.pointee = mi_open_header(path)
            return out.pointee == nil ? -1 : 0
        }
        return ImageHeader(image)
    }

    init(_ image: VipsImageHandle) {
        let fields = image.fieldNames
        loader = image.string("vips-loader") ?? "unknown"
        width = image.width
        height = image.height
        bands = image.bands
        pages = image.int("n-pages") ?? 1
        interpretation = String(cString: vips_enum_nick(vips_interpretation_get_type(), Int32(image.interpretation.rawValue)))
        bitsPerSample = Int(vips_format_sizeof(image.format)) * 8
        hasAlpha = image.hasAlpha
        orientation = image.int("orientation").flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        iccProfile = image.blob("icc-profile-data").map { ICCProfile.description(of: $0) ?? "embedded profile" }
        metadata = MetadataPresence(fieldNames: fields)
    }

    private static func checkReadable(_ path: String) throws(ImagePipelineError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .fileUnreadable(reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .fileUnreadable(reason: "not a regular file") }
        guard info.st_size > 0 else { throw .emptyFile }
        guard access(path, R_OK) == 0 else { throw .fileUnreadable(reason: String(cString: strerror(errno))) }
    }
}

/// Which kinds of metadata a file carries. A seller's photo must leave with none of these.
public struct MetadataPresence: Sendable, Equatable, Codable {
    public var exif: Bool
    public var gps: Bool
    public var xmp: Bool
    public var iptc: Bool
    public var icc: Bool

    public var isEmpty: Bool { !(exif || gps || xmp || iptc || icc) }

    init(fieldNames: [String]) {
        exif = fieldNames.contains { $0 == "exif-data" || $0.hasPrefix("exif-ifd") }
        // libvips names tags by IFD; IFD 3 is the GPS directory.
        gps = fieldNames.contains { $0.hasPrefix("exif-ifd3-") }
        xmp = fieldNames.contains("xmp-data")
        iptc = fieldNames.contains("iptc-data")
        icc = fieldNames.contains("icc-profile-data")
    }

    public var names: [String] {
        [(exif, "EXIF"), (gps, "GPS"), (xmp, "XMP"), (iptc, "IPTC"), (icc, "ICC profile")]
            .filter(\.0).map(\.1)
    }
}

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
    /// A progressive JPEG or an Adam7 PNG: its decoder holds the whole image's coefficients or rows
    /// at once, whatever size the output is (`DecodeCost`).
    public var interlaced: Bool
    /// A JPEG's chroma subsampling as libvips reads it (`4:2:0`, `4:4:4`), nil for other formats.
    public var chromaSubsampling: String?
    /// The embedded ICC profile's description, if the file carries a profile.
    public var iccProfile: String?
    /// A HEIF file's codec as libvips reads it: `av1` (AVIF) or `hevc` (HEIC); nil for other formats.
    public var heifCompression: String?
    public var metadata: MetadataPresence

    /// Dimensions after EXIF orientation: what a viewer shows.
    public var uprightWidth: Int { orientation >= 5 ? height : width }
    public var uprightHeight: Int { orientation >= 5 ? width : height }
    public var pixelCount: Int { width * height }
    /// A GIF or WebP of several frames (libvips reads the frame size as its size).
    public var isAnimation: Bool { pages > 1 && (format == "GIF" || format == "WebP") }

    /// The frames decoded when an output keeps at most `limit`: 1 for a still.
    public func frames(keepingAtMost limit: Int) -> Int { isAnimation ? min(pages, max(1, limit)) : 1 }

    public var format: String { Self.format(ofLoader: loader) }

    /// The file's own format when the pipeline writes it, so an output can keep it (imgproxy's
    /// preferred-formats rule); nil for HEIC and TIFF, which are read and never written.
    public var outputFormat: OutputFormat? {
        switch format {
        case "JPEG": .jpeg
        case "PNG": .png
        case "WebP": .webp
        case "GIF": .gif
        case "HEIF" where heifCompression == "av1": .avif
        default: nil
        }
    }

    static func format(ofLoader loader: String) -> String {
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
        try read(.file(path))
    }

    /// Parses the header only. A decompression bomb costs nothing here: libvips allocates no pixels.
    /// A file is read through its descriptor, lazily: only as much as its header takes.
    public static func read(_ source: ImageSource) throws(ImagePipelineError) -> ImageHeader {
        switch source {
        case .file(let path): try read(OpenFile(path: path), fileName: source.fileName)
        case .opened(let file): try read(file, fileName: nil)
        case .data(let data): try read(data, fileName: nil)
        }
    }

    /// The header of bytes already read; `fileName` only attributes libvips' messages.
    static func read(_ data: Data, fileName: String?) throws(ImagePipelineError) -> ImageHeader {
        try VipsRuntime.ensureStarted()
        guard !data.isEmpty else { throw .emptySource }
        return try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
            try open(vips_foreign_find_load_buffer(bytes.baseAddress, bytes.count), fileName: fileName) {
                mi_open_header_buffer(bytes.baseAddress, bytes.count)
            }
        }
    }

    private static func read(_ file: OpenFile, fileName: String?) throws(ImagePipelineError) -> ImageHeader {
        try VipsRuntime.ensureStarted()
        guard file.size > 0 else { throw .emptySource }
        guard let source = mi_source_from_descriptor(file.descriptor) else {
            throw .sourceUnreadable(errno: nil)
        }
        defer { g_object_unref(source) }
        return try open(vips_foreign_find_load_source(source), fileName: fileName) { mi_open_header_source(source) }
    }

    /// The kind of failure comes from the calls themselves: no loader is an unsupported format, a
    /// loader outside the allow-list is refused, and a loader that claimed the bytes and then failed
    /// means damage. libvips' text is only detail.
    private static func open(_ loader: UnsafePointer<CChar>?, fileName: String?,
                             _ open: () -> UnsafeMutablePointer<VipsImage>?) throws(ImagePipelineError) -> ImageHeader {
        guard let loader else {
            VipsErrorLog.drain()
            throw .unsupportedFormat
        }
        let nickname = loaderName(String(cString: mi_loader_nickname(loader)))
        // An allow-list, not libvips' block-list: only the photo formats the tools name are decoded,
        // so a loader libvips leaves open (matrix, PPM, Radiance, SVG, PDF) never sees a seller's
        // file or a downloaded one.
        guard allowedFormats.contains(format(ofLoader: nickname)) else {
            VipsErrorLog.drain()
            throw mi_loader_is_blocked(loader) == 0 ? .unsupportedFormat : .blockedFormat(loader: nickname)
        }
        let origin = VipsErrorLog.Source(loader: nickname, format: format(ofLoader: nickname), fileName: fileName)
        let image = try VipsImageHandle.make(origin: origin, { .damaged(format: origin.format, detail: $0) }) { out in
            out.pointee = open()
            return out.pointee == nil ? -1 : 0
        }
        return ImageHeader(image)
    }

    /// A loader's name without the `_buffer` or `_source` suffix: the same loader whichever way the
    /// bytes reach it.
    static func loaderName(_ nickname: String) -> String {
        for suffix in ["_buffer", "_source"] where nickname.hasSuffix(suffix) { return String(nickname.dropLast(suffix.count)) }
        return nickname
    }

    /// The formats decoded at all (AVIF and HEIC both load as HEIF).
    static let allowedFormats: Set<String> = ["JPEG", "PNG", "WebP", "HEIF", "TIFF", "GIF"]

    init(_ image: VipsImageHandle) {
        let fields = image.fieldNames
        loader = Self.loaderName(image.string("vips-loader") ?? "unknown")
        width = image.width
        height = image.height
        bands = image.bands
        pages = image.int("n-pages") ?? 1
        interpretation = String(cString: vips_enum_nick(vips_interpretation_get_type(), Int32(image.interpretation.rawValue)))
        bitsPerSample = Int(vips_format_sizeof(image.format)) * 8
        hasAlpha = image.hasAlpha
        orientation = image.int("orientation").flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        interlaced = (image.int("interlaced") ?? 0) != 0
        chromaSubsampling = image.string("jpeg-chroma-subsample")
        iccProfile = image.blob("icc-profile-data").map { ICCProfile.description(of: $0) ?? "embedded profile" }
        heifCompression = image.string("heif-compression")
        metadata = MetadataPresence(fieldNames: fields)
    }
}

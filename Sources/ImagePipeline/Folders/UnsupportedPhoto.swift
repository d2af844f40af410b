import Foundation

/// Files in a product folder that a seller meant as photos but that are not read (camera RAW, JPEG
/// 2000, BMP, Photoshop): named once, with what they are, instead of vanishing without a word. Known
/// by their extension or, for a misnamed file, by their first bytes; other files (`product.json`,
/// notes, `.DS_Store`) stay quiet.
enum UnsupportedPhoto {
    private static let byExtension: [String: String] = [
        "dng": "a DNG raw photo", "cr2": "a Canon raw photo", "cr3": "a Canon raw photo", "nef": "a Nikon raw photo",
        "arw": "a Sony raw photo", "raf": "a Fujifilm raw photo", "orf": "an Olympus raw photo", "rw2": "a Panasonic raw photo",
        "pef": "a Pentax raw photo", "srw": "a Samsung raw photo", "jp2": "a JPEG 2000 image", "j2k": "a JPEG 2000 image",
        "jpf": "a JPEG 2000 image", "jpx": "a JPEG 2000 image", "jxl": "a JPEG XL image", "bmp": "a BMP image",
        "psd": "a Photoshop file", "svg": "an SVG drawing", "ico": "an icon",
    ]

    /// Leading bytes of images under a name that does not say so, and what they are.
    private static let signatures: [(bytes: [UInt8], kind: String)] = [
        ([0xFF, 0xD8, 0xFF], "a JPEG photo under another extension"),
        ([0x89, 0x50, 0x4E, 0x47], "a PNG image under another extension"),
        ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], "a JPEG 2000 image"),
        ([0xFF, 0x4F, 0xFF, 0x51], "a JPEG 2000 image"),
        ([0x49, 0x49, 0x2A, 0x00], "a TIFF or raw photo under another extension"),
        ([0x4D, 0x4D, 0x00, 0x2A], "a TIFF or raw photo under another extension"),
        ([0x42, 0x4D], "a BMP image"),
        ([0x38, 0x42, 0x50, 0x53], "a Photoshop file"),
        ([0x47, 0x49, 0x46, 0x38], "a GIF image under another extension"),
    ]

    /// What the file at `path` is, when it looks like a photo; nil otherwise.
    static func kind(of path: String) -> String? {
        if let kind = byExtension[(path as NSString).pathExtension.lowercased()] { return kind }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 12)
        let count = pread(descriptor, &head, head.count, 0)
        guard count > 0 else { return nil }
        let bytes = Array(head.prefix(count))
        if bytes.count >= 12, bytes[4..<8] == [0x66, 0x74, 0x79, 0x70] { return "a HEIF/AVIF image under another extension" }
        return signatures.first { bytes.starts(with: $0.bytes) }?.kind
    }
}

import Foundation

/// What the OpenMarket server accepts as product images, in all three dialects. Checked before
/// anything is sent, against the bytes themselves rather than the file name.
public struct ImageRules: Sendable, Equatable {
    /// Images per product on register (and on a G1 edit that carries images).
    public var countRange: ClosedRange<Int> = 1...5
    /// 300,000 bytes satisfies both readings of the server's "300 KB".
    public var maxBytes: Int = 300_000

    public init() {}

    /// Every rule a product's set of images breaks: their count, and each image's own.
    public func violations(_ images: [UploadImage]) -> [String] {
        var problems: [String] = []
        if !countRange.contains(images.count) {
            problems.append("\(images.count) images; the server takes \(countRange.lowerBound) to \(countRange.upperBound)")
        }
        for image in images {
            problems += violations(filename: image.filename, byteCount: image.data.count, leadingBytes: image.data.prefix(16))
        }
        return problems
    }

    /// Every rule one image breaks, each phrased so the user knows what to change.
    public func violations(filename: String, data: Data) -> [String] {
        violations(filename: filename, byteCount: data.count, leadingBytes: data.prefix(16))
    }

    func violations(filename: String, byteCount: Int, leadingBytes: Data) -> [String] {
        var problems: [String] = []
        if byteCount > maxBytes {
            problems.append("\(filename): \(byteCount) bytes, over the server's limit of \(maxBytes); run it through `market-images prepare`")
        }
        guard let type = ImageType(sniffing: leadingBytes) else {
            problems.append("\(filename): not a JPEG or PNG by its content; the server takes only those")
            return problems
        }
        let ext = (filename as NSString).pathExtension.lowercased()
        if !type.extensions.contains(ext) {
            problems.append("\(filename): the content is \(type.rawValue.uppercased()) but the name ends in \"\(ext.isEmpty ? "(no extension)" : "." + ext)\"; the server keeps the extension it is given")
        }
        return problems
    }
}

/// The two formats the server stores, recognised by their signatures.
public enum ImageType: String, Sendable {
    case jpeg
    case png

    public init?(sniffing data: Data) {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }

    public var mimeType: String { "image/\(rawValue)" }
    var extensions: Set<String> { self == .jpeg ? ["jpg", "jpeg"] : ["png"] }
}

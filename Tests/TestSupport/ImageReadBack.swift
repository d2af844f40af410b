import Foundation
import XCTest
import ImagePipeline

/// Reads encoded bytes back through a file, the way a viewer or the server would see them.
public func readBack(_ data: Data, in folder: String, name: String = UUID().uuidString) throws -> (header: ImageHeader, image: DecodedImage) {
    let path = (folder as NSString).appendingPathComponent(name)
    try data.write(to: URL(fileURLWithPath: path))
    return (try ImageHeader.read(file: path), try DecodedImage.decode(file: path, maxPixels: .max) { _ in (100_000, 100_000) })
}

/// Metadata found by walking the container itself, independently of libvips: JPEG APPn segments, PNG
/// ancillary chunks, WebP chunks, HEIF/AVIF items (`Exif`, `mime` for XMP) and ICC `colr` boxes,
/// JPEG XL's boxes (a bare codestream has none, so nowhere to hold metadata), and GIF's comment,
/// text and application extensions (but the NETSCAPE2.0 loop count).
public enum ContainerMetadata {
    public static func kinds(in data: Data) -> [String] {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xD8]) { return jpegKinds(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return pngKinds(bytes) }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count > 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return webpKinds(bytes) }
        if bytes.count > 12, bytes[4..<8].elementsEqual("ftyp".utf8) { return heifKinds(bytes) }
        if bytes.starts(with: [0xFF, 0x0A]) { return [] }
        if bytes.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return jxlKinds(bytes) }
        if bytes.starts(with: Array("GIF8".utf8)) { return gifKinds(bytes) }
        return ["unknown container"]
    }

    /// Each `infe` item's type (after its version's id and protection index), and `colr` boxes that
    /// carry an ICC profile rather than `nclx` colour codes.
    private static func heifKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        for offset in 0..<max(0, bytes.count - 16) {
            let box = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if box == "infe" {
                let version = bytes[offset + 4]
                let type = offset + 8 + (version >= 3 ? 4 : 2) + 2
                guard version >= 2, type + 4 <= bytes.count else { continue }
                let item = String(decoding: bytes[type..<type + 4], as: UTF8.self)
                if item == "Exif" { kinds.append("EXIF") }
                if item == "mime" { kinds.append("XMP") }
            } else if box == "colr" {
                let kind = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                if kind == "prof" || kind == "rICC" { kinds.append("ICC") }
            }
        }
        return kinds
    }

    private static func jpegKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break } // start of scan: no more metadata segments
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let payload = bytes[(offset + 4)..<min(bytes.count, offset + 2 + length)]
            let text = String(decoding: payload.prefix(32), as: UTF8.self)
            switch marker {
            case 0xE1 where text.hasPrefix("Exif"): kinds.append("EXIF")
            case 0xE1 where text.hasPrefix("http://ns.adobe.com/xap"): kinds.append("XMP")
            case 0xE2 where text.hasPrefix("ICC_PROFILE"): kinds.append("ICC")
            case 0xED: kinds.append("IPTC")
            case 0xE3...0xEF, 0xFE: kinds.append(String(format: "APP/COM %02X", marker))
            default: break
            }
            offset += 2 + length
        }
        return kinds
    }

    /// A JPEG XL container's boxes: `Exif`, `xml ` (XMP), `jumb` (JUMBF), also when Brotli-wrapped (`brob`).
    private static func jxlKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            var type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if type == "brob", offset + 12 <= bytes.count { type = String(decoding: bytes[offset + 8..<offset + 12], as: UTF8.self) }
            if let kind = ["Exif": "EXIF", "xml ": "XMP", "jumb": "JUMBF"][type] { kinds.append(kind) }
            guard length >= 8 else { break } // 0: the last box runs to the end
            offset += length
        }
        return kinds
    }

    /// GIF's blocks after the screen descriptor and its colour table: images (their colour table and
    /// data sub-blocks skipped) and extensions, until the trailer.
    private static func gifKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        func colourTable(_ packed: UInt8) -> Int { packed & 0x80 == 0 ? 0 : 3 << (Int(packed & 7) + 1) }
        /// The offset past a chain of sub-blocks starting at `offset`, and the first one's bytes.
        func subBlocks(from offset: Int) -> (end: Int, first: ArraySlice<UInt8>) {
            var at = offset, first: ArraySlice<UInt8> = []
            while at < bytes.count, bytes[at] != 0 {
                let end = min(bytes.count, at + 1 + Int(bytes[at]))
                if at == offset { first = bytes[(at + 1)..<end] }
                at = end
            }
            return (at + 1, first)
        }
        guard bytes.count >= 13 else { return ["a truncated GIF"] }
        var offset = 13 + colourTable(bytes[10])
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x2C where offset + 10 <= bytes.count:
                offset = subBlocks(from: offset + 10 + colourTable(bytes[offset + 9]) + 1).end
            case 0x21 where offset + 1 < bytes.count:
                let (end, first) = subBlocks(from: offset + 2)
                switch bytes[offset + 1] {
                case 0xF9: break
                case 0xFE: kinds.append("comment")
                case 0x01: kinds.append("text")
                case 0xFF:
                    let application = String(decoding: first.prefix(11), as: UTF8.self)
                    if application != "NETSCAPE2.0" { kinds.append(["XMP DataXMP": "XMP", "ICCRGBG1012": "ICC"][application] ?? "application \(application)") }
                default: kinds.append(String(format: "extension %02X", bytes[offset + 1]))
                }
                offset = end
            case 0x3B: return offset + 1 == bytes.count ? kinds : kinds + ["bytes after the trailer"]
            default: return kinds + ["a truncated or unknown GIF block"]
            }
        }
        return kinds + ["no GIF trailer"]
    }

    private static func webpKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            if ["EXIF", "XMP ", "ICCP"].contains(type) { kinds.append(type) }
            offset += 8 + length + (length & 1)
        }
        return kinds
    }

    private static func pngKinds(_ bytes: [UInt8]) -> [String] {
        var kinds: [String] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if ["eXIf", "iTXt", "tEXt", "zTXt", "iCCP"].contains(type) { kinds.append(type) }
            offset += 12 + length
        }
        return kinds
    }
}

extension DecodedImage {
    /// Mean colour of each cell in a 3×3 grid: a cheap fingerprint of what the image shows and which
    /// way up it is.
    public func grid() throws -> [[Double]] {
        let cellWidth = width / 3, cellHeight = height / 3
        return try (0..<9).map { cell in
            try mean(x: (cell % 3) * cellWidth, y: (cell / 3) * cellHeight, width: cellWidth, height: cellHeight)
        }
    }
}

public func largestDifference(_ a: [[Double]], _ b: [[Double]]) -> Double {
    zip(a, b).flatMap { zip($0, $1).map { abs($0 - $1) } }.max() ?? .infinity
}

/// Colours (or any band means) equal within `accuracy` each.
public func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, message, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, message, file: file, line: line) }
}

import Foundation

/// Walks a JPEG, PNG or WebP file part by part and names the first part that is not needed to show
/// its pixels: the allow-list `raw` and `skp` send a source's own bytes by. A deny-list of metadata
/// kinds missed what tools really write (ImageMagick's EXIF in a PNG `zTXt`, a WebP `EXIF` chunk
/// with VP8X's flag cleared, a second JPEG after EOI or inside an MPF segment), so any part not
/// listed here, and any byte after the image's end, keeps the shortcut closed.
///
/// Allowed: JPEG SOI, APP0 JFIF without a thumbnail, DQT, DHT, DRI, SOF0–2, SOS with its entropy
/// data, EOI; PNG IHDR, PLTE, tRNS, IDAT, IEND and the numeric colour and density chunks gAMA,
/// cHRM, sRGB, sBIT, pHYs; WebP VP8X, VP8, VP8L, ALPH, ANIM, ANMF (and the frames in it). Parts of a
/// fixed size must have it, so none carries text after its fields. No colour profile: outputs carry
/// none either, so `raw` promises no more than a render. What is not looked into: the compressed
/// data itself (bytes after a zlib stream's end inside IDAT, after a VP8 frame, in an unused Huffman
/// table or palette entry), where no tool writes metadata and finding them would take a decode.
public enum ContainerParts {
    /// nil when every part is allowed; otherwise what was found, for the 422 that names it.
    public static func firstUnsendablePart(in data: Data, format: OutputFormat) -> String? {
        let bytes = [UInt8](data)
        switch format {
        case .jpeg: return jpeg(bytes)
        case .png: return png(bytes)
        case .webp: return webp(bytes)
        default: return "a \(format.rawValue) container"
        }
    }

    private static func jpeg(_ b: [UInt8]) -> String? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return "no JPEG start of image" }
        var at = 2
        while true {
            // Fill bytes (0xFF repeated) may stand before any marker.
            guard at + 1 < b.count, b[at] == 0xFF else { return "bytes that are not a JPEG segment" }
            while at + 1 < b.count, b[at + 1] == 0xFF { at += 1 }
            guard at + 1 < b.count else { return "a truncated JPEG marker" }
            let marker = b[at + 1]
            if marker == 0xD9 {
                return at + 2 == b.count ? nil : "\(b.count - at - 2) bytes after the JPEG's end of image"
            }
            guard at + 4 <= b.count else { return "a truncated JPEG segment" }
            let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
            let end = at + 2 + length
            guard length >= 2, end <= b.count else { return "a truncated JPEG segment" }
            switch marker {
            case 0xDB, 0xC4, 0xDD, 0xC0, 0xC1, 0xC2: break
            case 0xE0:
                // JFIF: identifier, version, units, densities, and a 0×0 thumbnail (16 bytes in all).
                let payload = b[(at + 4)..<end]
                guard length == 16, payload.starts(with: Array("JFIF\0".utf8)), b[at + 16] == 0, b[at + 17] == 0 else {
                    return "a JPEG APP0 segment other than a plain JFIF header"
                }
            case 0xDA:
                at = entropyEnd(b, from: end)
                continue
            default: return segmentName(marker, payload: b[(at + 4)..<end])
            }
            at = end
        }
    }

    /// Where a scan's entropy-coded data ends: at the first marker that is neither a stuffed zero
    /// nor a restart marker (RST0–7).
    private static func entropyEnd(_ b: [UInt8], from start: Int) -> Int {
        var at = start
        while at + 1 < b.count {
            if b[at] == 0xFF, b[at + 1] != 0x00, !(0xD0...0xD7).contains(b[at + 1]), b[at + 1] != 0xFF { return at }
            at += 1
        }
        return b.count
    }

    private static func segmentName(_ marker: UInt8, payload: ArraySlice<UInt8>) -> String {
        let id = String(decoding: payload.prefix(28).prefix { $0 != 0 }, as: UTF8.self)
        switch marker {
        case 0xE1 where id.hasPrefix("Exif"): return "a JPEG APP1 EXIF segment"
        case 0xE1 where id.hasPrefix("http://ns.adobe.com/xap"): return "a JPEG APP1 XMP segment"
        case 0xE2 where id == "ICC_PROFILE": return "a JPEG APP2 ICC profile"
        case 0xE2 where id == "MPF": return "a JPEG APP2 MPF segment (more images)"
        case 0xED: return "a JPEG APP13 IPTC segment"
        case 0xFE: return "a JPEG comment (COM)"
        case 0xE0...0xEF: return "a JPEG APP\(marker - 0xE0) segment"
        default: return String(format: "a JPEG segment with marker 0x%02X", marker)
        }
    }

    /// Each allowed PNG chunk and the lengths it may have; all but IDAT may stand once.
    private static let pngAllowed: [String: ClosedRange<Int>] = [
        "IHDR": 13...13, "PLTE": 3...768, "tRNS": 1...256, "IDAT": 0...Int.max, "gAMA": 4...4, "cHRM": 32...32, "sRGB": 1...1, "sBIT": 1...4, "pHYs": 9...9,
        "IEND": 0...0,
    ]

    private static func png(_ b: [UInt8]) -> String? {
        guard b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return "no PNG signature" }
        var (at, seen, colourType) = (8, Set<String>(), UInt8(0))
        while at + 8 <= b.count {
            let length = b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
            let end = at + 12 + length
            guard end <= b.count else { return "a truncated PNG \(type) chunk" }
            guard let lengths = pngAllowed[type] else { return "a PNG \(type) chunk" }
            guard type == "IDAT" || seen.insert(type).inserted else { return "a second PNG \(type) chunk" }
            if type == "IHDR", length == 13 { colourType = b[at + 17] }
            // tRNS holds one grey level (2 bytes), one colour (6), or an alpha per palette entry.
            let fits = switch type {
            case "tRNS": colourType == 0 ? length == 2 : colourType == 2 ? length == 6 : colourType == 3 && lengths.contains(length)
            case "PLTE": lengths.contains(length) && length % 3 == 0
            default: lengths.contains(length)
            }
            guard fits else { return "a PNG \(type) chunk of \(length) bytes" }
            if type == "IEND" { return end == b.count ? nil : "\(b.count - end) bytes after the PNG's IEND chunk" }
            at = end
        }
        return "a PNG without its IEND chunk"
    }

    /// Each allowed WebP chunk and the lengths it may have (a frame: its 16-byte header and chunks).
    private static let webpAllowed: [String: ClosedRange<Int>] = [
        "VP8X": 10...10, "VP8 ": 10...Int.max, "VP8L": 5...Int.max, "ALPH": 1...Int.max, "ANIM": 6...6, "ANMF": 16...Int.max,
    ]

    private static func webp(_ b: [UInt8]) -> String? {
        guard b.count >= 12, b.starts(with: Array("RIFF".utf8)), b[8..<12].elementsEqual("WEBP".utf8) else { return "no WebP RIFF header" }
        let riffEnd = 8 + littleEndian(b[4..<8])
        guard riffEnd <= b.count else { return "a truncated WebP file" }
        guard riffEnd == b.count else { return "\(b.count - riffEnd) bytes after the WebP's RIFF chunk" }
        return webpChunks(b, from: 12, to: riffEnd)
    }

    private static func webpChunks(_ b: [UInt8], from start: Int, to end: Int) -> String? {
        var (at, seen) = (start, Set<String>())
        while at < end {
            guard at + 8 <= end else { return "a truncated WebP chunk" }
            let type = String(decoding: b[at..<at + 4], as: UTF8.self)
            let length = littleEndian(b[at + 4..<at + 8])
            let next = at + 8 + length + (length & 1)
            guard at + 8 + length <= end, next <= end || at + 8 + length == end else { return "a truncated WebP \(type) chunk" }
            let name = type.trimmingCharacters(in: .whitespaces)
            guard let lengths = webpAllowed[type] else { return "a WebP \(name) chunk" }
            guard lengths.contains(length) else { return "a WebP \(name) chunk of \(length) bytes" }
            guard type == "ANMF" || seen.insert(type).inserted else { return "a second WebP \(name) chunk" }
            // A frame holds its own chunks after a 16-byte header: the same list applies.
            if type == "ANMF", let found = webpChunks(b, from: at + 24, to: at + 8 + length) { return found }
            at = min(next, end)
        }
        return nil
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}

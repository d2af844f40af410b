import Foundation

/// A PNG writer for small RGBA images with no compression library: the pixels go in zlib "stored"
/// blocks, which any PNG decoder reads. Foundation has no PNG encoder on Linux, and an app should
/// not need one to show a placeholder.
enum UncompressedPNG {
    /// 8-bit RGBA, not premultiplied, no filtering, no interlace. At most 65535 bytes a row, so
    /// that each row is one stored block (a placeholder's rows are 129 bytes).
    static func data(width: Int, height: Int, rgba: [UInt8]) -> Data {
        precondition(width > 0 && height > 0 && rgba.count == width * height * 4 && width * 4 + 1 <= 0xFFFF)
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]   // bit depth, RGBA, deflate, adaptive filters, no interlace

        // zlib: the header (deflate, 32 KB window, no dictionary), one stored block per row (its
        // filter byte 0, then the row), the Adler-32 of everything stored.
        let row = width * 4 + 1
        var stream: [UInt8] = [0x78, 0x01], stored: [UInt8] = []
        for y in 0..<height {
            let line = [0] + rgba[(y * (row - 1))..<((y + 1) * (row - 1))]
            stream += [y + 1 == height ? 1 : 0, UInt8(row & 255), UInt8(row >> 8), UInt8(~row & 255), UInt8(~row >> 8 & 255)] + line
            stored += line
        }
        stream.appendBigEndian(adler32(stored))

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", stream)
        png.appendChunk("IEND", [])
        return Data(png)
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// CRC-32 as PNG and zlib define it (reflected, polynomial 0xEDB88320), bit by bit: a
    /// placeholder is a few KB.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

private extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)])
    }

    /// A chunk: its length, type, data and the CRC of type and data.
    mutating func appendChunk(_ type: String, _ data: [UInt8]) {
        appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        append(contentsOf: typed)
        appendBigEndian(UncompressedPNG.crc32(typed))
    }
}

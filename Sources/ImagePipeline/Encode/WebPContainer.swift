import Foundation

/// Removes metadata chunks from a WebP file. libvips 8.14's webpsave writes an EXIF chunk even with
/// `strip` and even when every metadata field was removed from the image, so the only reliable place
/// to strip is the RIFF container itself: drop `EXIF`, `XMP ` and `ICCP`, clear their VP8X flags,
/// and fix the RIFF size.
enum WebPContainer {
    private static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]
    /// VP8X feature flags: ICC profile, EXIF, XMP.
    private static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    static func strippingMetadata(_ data: Data) throws(ImagePipelineError) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else {
            throw .encodeFailed(format: .webp, detail: "the encoder produced no RIFF/WEBP container")
        }
        var body: [UInt8] = Array("WEBP".utf8)
        var offset = 12
        while offset + 8 <= bytes.count {
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + length + (length & 1)
            guard end <= bytes.count else { throw .encodeFailed(format: .webp, detail: "the encoder produced a truncated \(type) chunk") }
            if !metadataChunks.contains(type) {
                var chunk = Array(bytes[offset..<end])
                if type == "VP8X", chunk.count > 8 { chunk[8] &= ~metadataFlags }
                body += chunk
            }
            offset = end
        }
        let size = UInt32(body.count)
        return Data("RIFF".utf8) + Data([UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]) + Data(body)
    }
}

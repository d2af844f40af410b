import CVips
import Foundation

/// What an app shows in a cell before the photo loads: the photo's shape, its dominant colour and
/// a ThumbHash. Written per source into `thumbs.json` and answered by the service's `/info` URLs.
public struct Placeholder: Sendable, Codable, Equatable {
    /// Width over height, upright.
    public var aspectRatio: Double
    /// `#rrggbb`: the most common colour, by 4-bit buckets of the photo at ThumbHash size, averaged.
    public var dominantColour: String
    /// Base64 of the ThumbHash bytes, as the JavaScript and Swift decoders take it.
    public var thumbHash: String
}

extension DecodedImage {
    /// The placeholder of this (upright) image, from a copy at most 100 px on a side.
    public func placeholder() throws(ImagePipelineError) -> Placeholder {
        let side = ThumbHash.maxSide
        let small = longEdge > side ? try fitting(box: (side, side), crop: VIPS_INTERESTING_NONE) : self
        let rgba = try small.withSRGBBytes(alpha: true) { Array($0) }
        return Placeholder(aspectRatio: Double(width) / Double(height),
                           dominantColour: Self.dominantColour(rgba),
                           thumbHash: Data(ThumbHash.encode(width: small.width, height: small.height, rgba: rgba)).base64EncodedString())
    }

    /// `body` over the image as 8-bit sRGB, row by row: with alpha, 4 bytes a pixel; without, 3
    /// (transparency must have been flattened first). One copy, made by libvips.
    func withSRGBBytes<T>(alpha: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(ImagePipelineError) -> T {
        var pixels = image
        if pixels.isGrey { pixels = try pixels.then { mi_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) } }
        if alpha && !pixels.hasAlpha { pixels = try pixels.then { mi_add_alpha($0, $1) } }
        var size = 0
        guard let memory = vips_image_write_to_memory(pixels.pointer, &size) else {
            throw .processingFailed(detail: VipsErrorLog.take(for: image.origin))
        }
        defer { g_free(memory) }
        return body(UnsafeBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self), count: size))
    }

    /// The most common 4-bit-per-channel colour among opaque pixels, as the mean of its pixels.
    static func dominantColour(_ rgba: [UInt8]) -> String {
        var buckets: [Int: (count: Int, r: Int, g: Int, b: Int)] = [:]
        for i in stride(from: 0, to: rgba.count, by: 4) where rgba[i + 3] >= 128 {
            let key = Int(rgba[i] >> 4) << 8 | Int(rgba[i + 1] >> 4) << 4 | Int(rgba[i + 2] >> 4)
            let old = buckets[key] ?? (0, 0, 0, 0)
            buckets[key] = (old.count + 1, old.r + Int(rgba[i]), old.g + Int(rgba[i + 1]), old.b + Int(rgba[i + 2]))
        }
        // The most pixels; a tie goes to the smaller bucket, so the same photo always gives the same colour.
        guard let top = buckets.max(by: { ($0.value.count, $1.key) < ($1.value.count, $0.key) })?.value else { return "#ffffff" }
        return String(format: "#%02x%02x%02x", top.r / top.count, top.g / top.count, top.b / top.count)
    }
}

import Foundation

/// The pixels a ThumbHash decodes to (`ThumbHashPlaceholder.image()`): at most 32 on a side, row
/// by row, 4 bytes a pixel, RGBA **not premultiplied** (as the reference decoder gives them).
/// Core Graphics wants premultiplied alpha, so an app that builds a `CGImage` from `rgba` itself
/// multiplies first; `pngData()` needs nothing of the kind.
public struct PlaceholderImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let rgba: [UInt8]

    /// Made only by the decoder, so `rgba` always holds `width`×`height` pixels.
    init(width: Int, height: Int, rgba: [UInt8]) {
        (self.width, self.height, self.rgba) = (width, height, rgba)
    }

    /// The pixels as a PNG file, which every platform's image loader reads (`UIImage(data:)`,
    /// `NSImage(data:)`, a `data:` URL in a web view), so an app needs no pixel code and no
    /// premultiplying of its own. Uncompressed (about 4 KB for 32×32), as the reference's
    /// `rgbaToDataURL`: the image is small and made once per cell, so compressing it is not worth it.
    public func pngData() -> Data {
        UncompressedPNG.data(width: width, height: height, rgba: rgba)
    }
}

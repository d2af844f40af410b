/// How a JPEG is decoded to fit a box: the size the fit gives, and the DCT scale (M/8) to decode at.
///
/// libjpeg's scaled IDCT is a block-wise shrink that aliases, so the decode stops where a Lanczos3
/// pass still has at least `headroom` times the output to shrink from: with 2 (libvips' own rule, and
/// the default) the scaled decode leaves no trace — SSIM against a full decode with float Lanczos3 is
/// that of `vips_thumbnail` (`Benchmarks/decode_quality.py`); straight to the box (1) it is visibly
/// softer and blockier. Only 1/8, 1/4, 1/2 and 1: libjpeg-turbo scales by any M/8, but at 3/8, 5/8,
/// 3/4 and 7/8 it enlarges 4:2:0 chroma through 6-, 10-, 12- and 14-point IDCTs that ring (a 600×450
/// photo fitted into 160 px is 2.6 levels from the full decode at 5/8, 1.0 at 1/2).
public struct JPEGFit: Equatable, Sendable {
    /// The output size in the file's stored orientation (what the decoder produces before turning).
    public var width: Int
    public var height: Int
    /// Decode at scale/8: 1, 2, 4 or 8.
    public var scale: Int
    /// How much the Lanczos pass shrinks the decoded image, on both axes (1: not at all).
    public var shrink: Double

    /// `box` is in upright dimensions, as callers see the photo; never enlarges.
    public init(header: ImageHeader, box: (width: Int, height: Int), headroom: Int) {
        let (uprightWidth, uprightHeight) = (header.uprightWidth, header.uprightHeight)
        let factor = min(Double(box.width) / Double(uprightWidth), Double(box.height) / Double(uprightHeight), 1)
        // libvips' rounding of a fit (half up), so both decode paths give the same sizes.
        let fitted = (width: max(1, Int(Double(uprightWidth) * factor + 0.5)), height: max(1, Int(Double(uprightHeight) * factor + 0.5)))
        (width, height) = header.orientation >= 5 ? (fitted.height, fitted.width) : fitted
        // Headroom over the exact scaled size, not the rounded one: 2048×878 fitted into 512 is 512×220
        // (219.5 rounded), and 1/2 scale (1024×439) is twice that; twice 220 would decode it whole.
        let stored = (width: header.width, height: header.height)
        let needed = (width: Int(Double(stored.width) * factor * Double(headroom)), height: Int(Double(stored.height) * factor * Double(headroom)))
        // libjpeg rounds a scaled side up.
        scale = [1, 2, 4, 8].first { m in
            (stored.width * m + 7) / 8 >= min(needed.width, stored.width) && (stored.height * m + 7) / 8 >= min(needed.height, stored.height)
        } ?? 8
        shrink = Double(scale) / 8 / factor
    }
}

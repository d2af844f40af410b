/// How a JPEG is decoded to fit a box: the size the fit gives, and the DCT scale (M/8) to decode at.
///
/// libjpeg's scaled IDCT is a block-wise shrink that aliases, so the decode stops where a Lanczos3
/// pass still has at least `headroom` times the output to shrink from: with 2 (libvips' own rule, and
/// the default) the scaled decode leaves no trace — SSIM against a full decode with float Lanczos3 is
/// the same as `vips_thumbnail`'s, 0.9983 on the benchmark's 2K JPEGs; straight to the box (1) it is
/// 0.986 (`Benchmarks/decode_quality.py`). libvips only scales by 1/2, 1/4 and 1/8; any M/8 lets a
/// 1940 px photo fitted into 512 px decode at 5/8 where libvips decodes it whole.
struct JPEGFit: Equatable {
    /// The output size in the file's stored orientation (what the decoder produces before turning).
    var width: Int
    var height: Int
    /// Decode at scale/8, 1...8.
    var scale: Int

    /// `box` is in upright dimensions, as callers see the photo; never enlarges.
    init(header: ImageHeader, box: (width: Int, height: Int), headroom: Int) {
        let (uprightWidth, uprightHeight) = (header.uprightWidth, header.uprightHeight)
        let factor = min(Double(box.width) / Double(uprightWidth), Double(box.height) / Double(uprightHeight), 1)
        // libvips' rounding of a fit (half up), so both decode paths give the same sizes.
        let fitted = (width: max(1, Int(Double(uprightWidth) * factor + 0.5)), height: max(1, Int(Double(uprightHeight) * factor + 0.5)))
        (width, height) = header.orientation >= 5 ? (fitted.height, fitted.width) : fitted
        let (stored, target) = ((header.width, header.height), (width * headroom, height * headroom))
        // libjpeg rounds a scaled side up.
        scale = (1...8).first { m in
            (stored.0 * m + 7) / 8 >= min(target.0, stored.0) && (stored.1 * m + 7) / 8 >= min(target.1, stored.1)
        } ?? 8
    }
}

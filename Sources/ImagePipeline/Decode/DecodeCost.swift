/// An upper bound on the memory a render of one source holds, from its header alone, before any
/// pixel is decoded: what the decoder itself must keep for that format at the scale it can shrink
/// to on load, plus the output's pixels. A service admits renders by it (a small file can cost
/// gigabytes: a progressive JPEG keeps every DCT coefficient, a GIF decodes onto its whole screen).
public enum DecodeCost {
    /// Bytes an encoder that holds the whole image keeps per output pixel: libaom 28 for AVIF (it
    /// held 21 for a 4096×3072 image), libjxl 52 for JPEG XL up to effort 8 and 260 at 9 (peak memory
    /// of a 4096² noise image, 0.85 and 4.4 GB). nil: the others encode as rows arrive (GIF a frame at
    /// a time: its RGBA and palette indices, within the output's own share).
    static func encoderBytesPerPixel(_ format: OutputFormat, _ encoder: EncoderSettings) -> Double? {
        switch format {
        case .avif: 28
        case .jxl: encoder.jxlEffort >= 9 ? 260 : 52
        case .jpeg, .png, .webp, .gif: nil
        }
    }

    /// Bytes a perceptual search holds per scored pixel, beside the output: the SSIMULACRA2
    /// reference (its pyramid of XYB planes, means and squares: 48), one comparison's planes and
    /// pyramid (44), the attempt read back and flattened (8), and its reference copy.
    static let scoringBytesPerPixel = 112.0

    /// Bytes a render of a source with `header` into `box` (upright; `DecodedImage.unbounded` for a
    /// free side) holds at most, for an output of at most `outputPixels` (by default the source
    /// fitted into the box, never enlarged; see `RenderSpec.outputPixelBound`) in `format`, encoded
    /// with `encoder`. An animation's `frames` each cost their output and their share of the decode;
    /// a perceptual search, what scoring `scoredPixels` holds (`RenderSpec.scoredPixelBound`).
    public static func bytes(header: ImageHeader, box: (width: Int, height: Int), outputPixels: Int? = nil,
                             format: OutputFormat = .jpeg, encoder: EncoderSettings = EncoderSettings(), frames: Int = 1,
                             scoredPixels: Int = 0) -> Int {
        let pixels = Double(header.width) * Double(header.height)
        let fit = min(1, Double(box.width) / Double(max(1, header.uprightWidth)), Double(box.height) / Double(max(1, header.uprightHeight)))
        // The output and the working copies around it (resize, crop, encode): four of its RGBA size
        // for the photo's own pixels, two for what enlarging, extending or padding adds (filled as
        // it is encoded: 6 bytes a pixel measured on a 4096² canvas); for AVIF and JPEG XL, what their
        // encoder holds for every output pixel. And what any render holds whatever its size
        // (libvips' buffers, a colour transform's tables).
        let fitted = pixels * fit * fit, asked = max(fitted, outputPixels.map(Double.init) ?? fitted)
        let perPixel = encoderBytesPerPixel(format, encoder).map { $0 * asked } ?? 16 * fitted + 8 * (asked - fitted)
        let output = perPixel * Double(frames) + scoringBytesPerPixel * Double(scoredPixels) + Double(fixedBytes)
        let decoder: Double
        switch header.format {
        case "JPEG":
            // Decoded at the DCT scale the fit allows and shrunk as rows arrive (`JPEGFit`): rows, not
            // the image; a progressive file also keeps every coefficient (2 bytes each) to its last
            // scan. CMYK the same, four components, converted once small.
            let scale = Double(JPEGFit(header: header, box: box, headroom: 2).scale) / 8
            decoder = Double(header.width) * scale * Double(header.bands) * 2048 + (header.interlaced ? pixels * 2 * chromaSamples(header) : 0)
        case "PNG" where header.interlaced, "TIFF":
            // Adam7 needs every row before the first is whole; a strip TIFF may be read whole.
            decoder = pixels * Double(header.bands * max(1, header.bitsPerSample / 8)) * 2
        case "PNG":
            decoder = Double(header.width * header.bands * max(1, header.bitsPerSample / 8)) * 64
        case "GIF":
            // Frames are drawn onto the logical screen, RGBA, with the previous one kept; each frame
            // kept is held fitted.
            decoder = pixels * 4 * 2 + Double(frames - 1) * fitted * 8
        case "WebP":
            // Decoded scaled to the fit.
            decoder = pixels * fit * fit * 4 * 2 * Double(frames)
        default:
            // HEIF/AVIF: the whole grid decoded (libheif has no scaled decode), converted once.
            decoder = pixels * Double(max(3, header.bands)) * 2
        }
        return Int(min(Double(Int.max / 2), decoder + output))
    }

    /// Held by any render, however small (BENCHMARKS.md, the decode-memory section, has what small
    /// renders were measured to hold).
    static let fixedBytes = 16 << 20

    /// Samples per pixel over all of a JPEG's components: 3 at 4:4:4, 1.5 at 4:2:0, 1 for grey, 4 for
    /// CMYK (taken as never subsampled).
    private static func chromaSamples(_ header: ImageHeader) -> Double {
        guard header.bands == 3 else { return Double(header.bands) }
        switch header.chromaSubsampling {
        case "4:2:0": return 1.5
        case "4:2:2", "4:4:0": return 2
        default: return 3
        }
    }
}

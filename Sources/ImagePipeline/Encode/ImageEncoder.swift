import CVips
import Foundation

/// The one place pixels become bytes, for every format: JPEG flattened onto white with chroma
/// subsampling pinned (see the shim), PNG, WebP with its container stripped of metadata, AVIF,
/// JPEG XL as a bare codestream, and GIF (animated when the image is).
enum ImageEncoder {
    /// `fullChroma`: a JPEG in 4:4:4 rather than 4:2:0 (`PerceptualEncoder` chooses it where it is
    /// fewer bytes for the same looks); other formats ignore it.
    static func encode(_ image: DecodedImage, as format: OutputFormat, quality: Int, settings: EncoderSettings,
                       fullChroma: Bool = false) throws(ImagePipelineError) -> Data {
        let pixels = try image.pixels(for: format)
        let failure = { (detail: String) in ImagePipelineError.encodeFailed(format: format, detail: detail) }
        let q = try VipsArgument.int32(quality, "quality")
        switch format {
        case .jpeg:
            return try pixels.save(failure: failure) { mi_jpegsave_buffer($0, $1, $2, q, settings.progressive ? 1 : 0, fullChroma ? 1 : 0) }
        case .png:
            return try pixels.save(failure: failure) { mi_pngsave_buffer($0, $1, $2) }
        case .webp:
            return try WebPContainer.strippingMetadata(try pixels.save(failure: failure) { mi_webpsave_buffer($0, $1, $2, q) })
        case .avif:
            let effort = try VipsArgument.int32(settings.avifEffort, "avif-effort")
            return try pixels.save(failure: failure) { mi_avifsave_buffer($0, $1, $2, q, effort) }
        case .jxl:
            let effort = try VipsArgument.int32(settings.jxlEffort, "jxl-effort")
            return try pixels.save(failure: failure) { mi_jxlsave_buffer($0, $1, $2, q, effort) }
        case .gif:
            return try pixels.save(failure: failure) { mi_gifsave_buffer($0, $1, $2) }
        }
    }
}

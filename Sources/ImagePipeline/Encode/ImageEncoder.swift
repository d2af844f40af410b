import CKernels
import CVips
import Foundation

/// The one place pixels become bytes, for every format: JPEG flattened onto white with chroma
/// subsampling pinned, by our own writer (`jpeg`), PNG, WebP with its container stripped of
/// metadata, AVIF, JPEG XL as a bare codestream, and GIF (animated when the image is).
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
            return try jpeg(pixels, quality: q, progressive: settings.progressive, fullChroma: fullChroma, failure: failure)
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

    /// libjpeg-turbo through `mi_jpeg_encode`: libvips' jpegsave tables and sampling, but progressive
    /// in nine scans of spectral selection, no more bytes at under half the time
    /// (`Sources/CKernels/jpeg_encode.c`). Chroma is pinned to 4:2:0 or 4:4:4: libjpeg's automatic
    /// switch at Q >= 90 doubles the size between two neighbouring qualities and breaks any byte-budget
    /// search.
    private static func jpeg(_ pixels: VipsImageHandle, quality: Int32, progressive: Bool, fullChroma: Bool,
                             failure: (String) -> ImagePipelineError) throws(ImagePipelineError) -> Data {
        try RenderWatch.check()
        let ready = pixels.format == VIPS_FORMAT_UCHAR ? pixels : try pixels.then { mi_cast_uchar($0, $1) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        guard mi_jpeg_encode(ready.pointer, quality, progressive ? 1 : 0, fullChroma ? 1 : 0, &buffer, &length) == 0, let buffer else {
            throw failure(VipsErrorLog.take(for: ready.origin))
        }
        return Data(bytesNoCopy: buffer, count: Int(length), deallocator: .free)
    }
}

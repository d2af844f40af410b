import CVips
import Foundation

/// The one place pixels become bytes, for every format: JPEG flattened onto white with chroma
/// subsampling pinned (see the shim), PNG, WebP with its container stripped of metadata, and AVIF.
enum ImageEncoder {
    /// libheif's AV1 effort for AVIF: 0 is the fastest; see BENCHMARKS.md for bytes and time by effort.
    static let avifEffort: Int32 = 0

    /// `progressive`: JPEGs in progressive scans (smaller by a few percent on nearly every photo, and
    /// shown while they load); see BENCHMARKS.md.
    static func encode(_ image: DecodedImage, as format: OutputFormat, quality: Int, progressive: Bool) throws(ImagePipelineError) -> Data {
        let pixels = try image.pixels(for: format)
        let failure = { (detail: String) in ImagePipelineError.encodeFailed(format: format, detail: detail) }
        let q = try VipsArgument.int32(quality, "quality")
        switch format {
        case .jpeg:
            return try pixels.save(failure: failure) { mi_jpegsave_buffer($0, $1, $2, q, progressive ? 1 : 0) }
        case .png:
            return try pixels.save(failure: failure) { mi_pngsave_buffer($0, $1, $2) }
        case .webp:
            return try WebPContainer.strippingMetadata(try pixels.save(failure: failure) { mi_webpsave_buffer($0, $1, $2, q) })
        case .avif:
            return try pixels.save(failure: failure) { mi_avifsave_buffer($0, $1, $2, q, avifEffort) }
        }
    }
}

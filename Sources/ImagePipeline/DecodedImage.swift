import CVips
import Foundation

/// A source photo decoded once: upright, sRGB (or 8-bit greyscale), metadata-free by the time it is
/// saved, its pixels in memory. Every output — the upload image, each thumbnail — is derived from
/// this without touching the file again.
public struct DecodedImage: Sendable {
    let image: VipsImageHandle
    /// The source's header, as read before decoding.
    public let source: ImageHeader

    public var width: Int { image.width }
    public var height: Int { image.height }
    public var longEdge: Int { max(width, height) }

    /// Decodes `path` straight to fit inside a box (upright dimensions) using shrink-on-load (JPEG DCT
    /// scaling, HEIF/WebP scaled decode), which is both faster and far leaner than a full decode
    /// followed by a resize. `box` sees the header, so a caller can size it by the photo's shape.
    public static func decode(
        file path: String, maxPixels: Int, box: (ImageHeader) -> (width: Int, height: Int)
    ) throws(ImagePipelineError) -> DecodedImage {
        try VipsRuntime.$sourcePath.withValue(path) {
            Result { () throws(ImagePipelineError) in try decodeUnlabelled(file: path, maxPixels: maxPixels, box: box) }
        }.get()
    }

    private static func decodeUnlabelled(
        file path: String, maxPixels: Int, box: (ImageHeader) -> (width: Int, height: Int)
    ) throws(ImagePipelineError) -> DecodedImage {
        let header = try ImageHeader.read(file: path)
        guard header.pixelCount <= maxPixels else {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        let (width, height) = box(header)
        // An embedded profile (Display P3, Adobe RGB) or CMYK needs a real colour transform; stripping
        // the profile from unconverted pixels would shift every colour. Greyscale stays greyscale.
        let exportProfile: String? = header.isCMYKOrProfiled ? "srgb" : nil
        let loaded = try VipsImageHandle.make({ .decodeFailed($0) }) { out in
            mi_thumbnail(path, out, Int32(width), Int32(height), VIPS_INTERESTING_NONE, exportProfile, VIPS_FAIL_ON_ERROR)
        }
        let normalised = try loaded.normalisedTo8BitDisplay()
        // fail_on only takes effect while pixels are read: a truncated JPEG fails here, not as grey.
        return DecodedImage(image: try normalised.materialized(), source: header)
    }

    /// A copy resized to fit `edge`, for budget shrinking; pixels stay in memory.
    func fitting(edge: Int) throws(ImagePipelineError) -> DecodedImage {
        try fitting(box: (edge, edge), crop: VIPS_INTERESTING_NONE)
    }

    /// A copy resized into a box, cropped to fill it unless `crop` is none; never enlarged.
    func fitting(box: (width: Int, height: Int), crop: VipsInteresting) throws(ImagePipelineError) -> DecodedImage {
        let resized = try image.then { mi_thumbnail_image($0, $1, Int32(box.width), Int32(box.height), crop) }
        return DecodedImage(image: try resized.materialized(), source: source)
    }

    /// The pixels ready for a given encoding: JPEG gets transparent areas flattened onto white.
    func pixels(for format: OutputFormat) throws(ImagePipelineError) -> VipsImageHandle {
        guard image.hasAlpha, !format.keepsAlpha else { return image }
        return try image.then { mi_flatten($0, $1, 255, 255) }.materialized()
    }
}

extension VipsImageHandle {
    /// Brings any decoded image to 8-bit sRGB, or 8-bit greyscale for grey sources, keeping alpha.
    /// 16-bit TIFF/PNG and images without a profile come out of the loader in their own space.
    func normalisedTo8BitDisplay() throws(ImagePipelineError) -> VipsImageHandle {
        let grey = interpretation == VIPS_INTERPRETATION_B_W || interpretation == VIPS_INTERPRETATION_GREY16
        let target = grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        var image = self
        if image.interpretation != target {
            image = try image.then { mi_colourspace($0, $1, target) }
        }
        if image.format != VIPS_FORMAT_UCHAR {
            image = try image.then { mi_cast_uchar($0, $1) }
        }
        // Loaders can report more bands than the space has (CMYK leftovers, extra alpha planes):
        // keep colour plus at most one alpha.
        let colourBands = grey ? 1 : 3
        let wanted = colourBands + (image.hasAlpha ? 1 : 0)
        if image.bands > wanted {
            image = try image.then { mi_extract_band($0, $1, 0, Int32(wanted)) }
        }
        return image
    }
}

extension VipsImageHandle {
    func jpegData(quality: Int) throws(ImagePipelineError) -> Data {
        try save { mi_jpegsave_buffer($0, $1, $2, Int32(quality)) }
    }

    func pngData() throws(ImagePipelineError) -> Data {
        try save { mi_pngsave_buffer($0, $1, $2) }
    }

    /// Mean value of each band over a rectangle, so tests judge orientation, colour and flattening
    /// by looking at pixels rather than at metadata.
    func meanBands(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> [Double] {
        let region = try then { mi_crop($0, $1, Int32(x), Int32(y), Int32(width), Int32(height)) }
        return try (0..<bands).map { band throws(ImagePipelineError) in
            let single = try region.then { mi_extract_band($0, $1, Int32(band), 1) }
            var mean = 0.0
            guard mi_avg(single.pointer, &mean) == 0 else { throw .processingFailed(VipsRuntime.takeErrorMessage()) }
            return mean
        }
    }
}

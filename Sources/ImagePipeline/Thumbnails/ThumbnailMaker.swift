import CVips
import Foundation

/// Derives every thumbnail of a photo from its one decode, in memory.
struct ThumbnailMaker {
    let options: ThumbnailOptions

    /// `stemPath` is the output path without extension, e.g. `sku-1/IMG_2`.
    ///
    /// Only the largest thumbnail is cropped; the smaller ones are plain resizes of it. That saves an
    /// attention analysis per variant and gives the list row and the grid cell the same framing.
    func make(from decoded: DecodedImage, stemPath: String) throws(ImagePipelineError) -> [(Thumbnail, Data)] {
        var largest: DecodedImage?
        return try options.sizes.map { size throws(ImagePipelineError) in
            let renderer = try ImageRenderer(spec: options.spec(pixels: size.pixels))
            let image: DecodedImage
            if let largest {
                image = try largest.fitting(box: (size.pixels, size.pixels), crop: VIPS_INTERESTING_NONE)
            } else {
                image = try renderer.resize(decoded)
                largest = image
            }
            let encoded = try renderer.encode(image)
            let path = "\(stemPath).\(size.variant)@\(size.scale)x.\(encoded.format.fileExtension)"
            return (Thumbnail(variant: size.variant, scale: size.scale, path: path, width: encoded.width,
                              height: encoded.height, bytes: encoded.byteCount), encoded.data)
        }
    }
}

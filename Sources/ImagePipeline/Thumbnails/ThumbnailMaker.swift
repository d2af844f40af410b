import Foundation

/// Derives every thumbnail of a photo from its one decode, in memory, through the render pipeline.
struct ThumbnailMaker {
    let options: ThumbnailOptions

    /// `stemPath` is the output path without extension, e.g. `sku-1/IMG_2`.
    ///
    /// Only the largest thumbnail is cropped; the smaller ones are rendered from its pixels as plain
    /// fits (`ThumbnailOptions.smallerSpec`). That saves an attention analysis per variant and gives
    /// the list row and the grid cell the same framing.
    func make(from decoded: DecodedImage, stemPath: String) throws(ImagePipelineError) -> [(Thumbnail, Data)] {
        var largest: DecodedImage?
        return try options.sizes.map { size throws(ImagePipelineError) in
            let encoded: EncodedImage
            if let largest {
                encoded = try ImageRenderer(spec: options.smallerSpec(pixels: size.pixels)).render(largest)
            } else {
                let renderer = try ImageRenderer(spec: options.spec(pixels: size.pixels))
                let pixels = try renderer.pixels(decoded)
                largest = pixels
                encoded = try renderer.encode(pixels)
            }
            let path = "\(stemPath).\(size.variant)@\(size.scale)x.\(encoded.format.fileExtension)"
            return (Thumbnail(variant: size.variant, scale: size.scale, path: path, width: encoded.width,
                              height: encoded.height, bytes: encoded.byteCount), encoded.data)
        }
    }
}

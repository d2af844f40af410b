import CVips
import Foundation

/// One encoded thumbnail and where it belongs.
public struct Thumbnail: Sendable, Equatable, Codable {
    public var variant: String
    public var scale: Int
    /// Relative to the output folder.
    public var path: String
    public var width: Int
    public var height: Int
    public var bytes: Int
}

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
            let image: DecodedImage
            if let largest {
                image = try largest.fitting(box: (size.pixels, size.pixels), crop: VIPS_INTERESTING_NONE)
            } else {
                image = try variant(of: decoded, box: size.pixels)
                largest = image
            }
            let data = try encode(image)
            let path = "\(stemPath).\(size.variant)@\(size.scale)x.\(options.format.fileExtension)"
            return (Thumbnail(variant: size.variant, scale: size.scale, path: path, width: image.width,
                              height: image.height, bytes: data.count), data)
        }
    }

    /// A square of `box` (or of the shorter side, for a small source: never enlarged), or the whole
    /// photo fitted inside `box` when not cropping.
    private func variant(of decoded: DecodedImage, box: Int) throws(ImagePipelineError) -> DecodedImage {
        let side = options.crop == .none ? box : min(box, decoded.width, decoded.height)
        return try decoded.fitting(box: (side, side), crop: options.crop.interesting)
    }

    private func encode(_ image: DecodedImage) throws(ImagePipelineError) -> Data {
        let pixels = try image.pixels(for: options.format)
        switch options.format {
        case .webp:
            return try WebPContainer.strippingMetadata(try pixels.save { mi_webpsave_buffer($0, $1, $2, Int32(options.quality)) })
        case .jpeg, .png:
            return try pixels.jpegData(quality: options.quality)
        }
    }
}

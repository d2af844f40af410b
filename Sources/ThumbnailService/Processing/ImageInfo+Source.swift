import Foundation
import ImagePipeline
import MarketUploader

/// What an info URL answers (imgproxy's `/info`, with the placeholder fields of its Pro version) is
/// `MarketUploader`'s `ImageInfo`, the type apps decode it with: one description of the answer.
extension ImageInfo {
    /// One decode at ThumbHash size (shrink-on-load keeps that cheap); the header is the decode's.
    init(_ source: ImageSource, maxPixels: Int) throws(ImagePipelineError) {
        let small = try DecodedImage.decode(source, maxPixels: maxPixels) { _ in (ThumbHash.maxSide, ThumbHash.maxSide) }
        let header = small.source
        let placeholder = try small.placeholder()
        guard let colour = RGBAColour(hex: placeholder.dominantColour), let hash = try? ThumbHashPlaceholder(base64: placeholder.thumbHash) else {
            throw .processingFailed(detail: "the placeholder could not be described")
        }
        self.init(format: header.format.lowercased(), width: header.uprightWidth, height: header.uprightHeight, orientation: header.orientation,
                  aspectRatio: Double(header.uprightWidth) / Double(header.uprightHeight), dominantColour: colour, thumbHash: hash)
    }
}

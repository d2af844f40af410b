import Foundation
import ImagePipeline

/// What an info URL answers (imgproxy's `/info`, with the placeholder fields of its Pro version):
/// the source's format and upright size, and the aspect ratio, dominant colour and ThumbHash a
/// list cell shows while the image loads.
struct SourceInfo: Encodable, Sendable {
    var format: String
    /// Upright: EXIF orientation applied, as every output is.
    var width: Int
    var height: Int
    var orientation: Int
    var aspectRatio: Double
    var dominantColour: String
    var thumbHash: String

    /// One decode at ThumbHash size (shrink-on-load keeps that cheap); the header is the decode's.
    init(_ source: ImageSource, maxPixels: Int) throws(ImagePipelineError) {
        let small = try DecodedImage.decode(source, maxPixels: maxPixels) { _ in (ThumbHash.maxSide, ThumbHash.maxSide) }
        let header = small.source
        let placeholder = try small.placeholder()
        (format, width, height, orientation) = (header.format.lowercased(), header.uprightWidth, header.uprightHeight, header.orientation)
        aspectRatio = Double(header.uprightWidth) / Double(header.uprightHeight)
        (dominantColour, thumbHash) = (placeholder.dominantColour, placeholder.thumbHash)
    }
}

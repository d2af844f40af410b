import Foundation

/// What the thumbnail service answers for an info URL (`ThumbnailURLBuilder.infoURL(for:)`,
/// imgproxy's `/info`), decoded into what a list cell draws with: the photo's upright size and shape
/// to lay the cell out, its dominant colour to fill it at once, and its ThumbHash to paint a blurred
/// likeness until the thumbnail arrives. The answer is small, cached by the service and every cache
/// in front of it like an image, and the same for every size of the photo, so one request serves
/// every cell that shows it.
public struct ImageInfo: Sendable, Hashable, Codable {
    /// The source's format as the service read it: `jpeg`, `png`, `webp`, `heif`, `tiff`, `gif`.
    public var format: String
    /// Upright: with the EXIF orientation applied, as every thumbnail is.
    public var width: Int
    public var height: Int
    /// The EXIF orientation the source was stored with (1…8; 1 is upright already).
    public var orientation: Int
    /// Width over height, upright: the exact shape (the ThumbHash holds only a rough one).
    public var aspectRatio: Double
    /// The most common colour of the photo (`#rrggbb` in the answer).
    public var dominantColour: RGBAColour
    /// The placeholder (base64 in the answer).
    public var thumbHash: ThumbHashPlaceholder

    public init(format: String, width: Int, height: Int, orientation: Int, aspectRatio: Double,
                dominantColour: RGBAColour, thumbHash: ThumbHashPlaceholder) {
        (self.format, self.width, self.height, self.orientation) = (format, width, height, orientation)
        (self.aspectRatio, self.dominantColour, self.thumbHash) = (aspectRatio, dominantColour, thumbHash)
    }
}

import Foundation

/// An image ready to upload, write or send: its bytes and what a caller needs to describe them.
public struct EncodedImage: Sendable, Equatable {
    public let data: Data
    public let format: OutputFormat
    public let width: Int
    public let height: Int
    /// The JPEG/WebP quality chosen, nil for PNG.
    public let quality: Int?
    /// How many encodes the byte-budget search spent.
    public internal(set) var encodes: Int
    /// Things the user should know that did not stop the image (a PNG that had to become a JPEG).
    public var warnings: [String]
    /// The source's stem with the right extension, e.g. `IMG_0001.jpg` for `IMG_0001.HEIC`.
    public var suggestedFilename: String
    /// How the photo looks to a buyer (`prepare` measures it; nil elsewhere).
    public var look: PhotoLook?
    /// Its SSIMULACRA2 against the pixels it was encoded from, when the quality was chosen by a
    /// perceptual target (`RenderSpec.targetScore`); nil otherwise.
    public var score: Double?
    /// How it sits in its frame, for a listing's rules (`prepare` with `--listing`; nil elsewhere).
    public var frame: PhotoFrame?
    /// A JPEG in 4:4:4, chosen by the perceptual search for fewer bytes at the same looks; 4:2:0 otherwise.
    public internal(set) var fullChroma = false

    init(data: Data, format: OutputFormat, width: Int, height: Int, quality: Int?, encodes: Int,
         warnings: [String] = [], stem: String = "image") {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.quality = quality
        self.encodes = encodes
        self.warnings = warnings
        suggestedFilename = stem + "." + format.fileExtension
    }

    /// This image with what a caller knows beyond the encode: warnings, the source's stem, and the
    /// encodes spent before this one (a PNG that did not fit).
    func described(warnings: [String], stem: String, encodesBefore: Int = 0, look: PhotoLook? = nil, frame: PhotoFrame? = nil) -> EncodedImage {
        var image = EncodedImage(data: data, format: format, width: width, height: height, quality: quality,
                                 encodes: encodesBefore + encodes, warnings: warnings, stem: stem)
        (image.look, image.score, image.fullChroma, image.frame) = (look, score, fullChroma, frame)
        return image
    }

    public var mimeType: String { format.mimeType }
    public var byteCount: Int { data.count }
}

import Foundation

/// Turns one photo file into an upload-ready image: the library entry point the CLI and uploader share.
///
/// Data flows one way: file → `DecodedImage` (upright, sRGB, in memory) → `EncodedImage` (stripped,
/// under budget). Callers that need more outputs from the same photo (thumbnails) decode once and
/// pass the `DecodedImage` on.
public struct ImagePreparer: Sendable {
    public let options: PrepareOptions

    public init(options: PrepareOptions = PrepareOptions()) {
        self.options = options
    }

    public func prepare(file path: String) throws(ImagePipelineError) -> EncodedImage {
        try encode(try decode(file: path), stem: Self.stem(of: path))
    }

    public func decode(file path: String) throws(ImagePipelineError) -> DecodedImage {
        try DecodedImage.decode(file: path, maxPixels: options.maxPixels) { _ in (options.maxEdge, options.maxEdge) }
    }

    public func encode(_ decoded: DecodedImage, stem: String) throws(ImagePipelineError) -> EncodedImage {
        try BudgetEncoder(options: options).encode(decoded, stem: stem)
    }

    /// Bytes at every quality in the range, on exactly the pixels `encoded` was made from: the
    /// exhaustive answer the model-guided search is checked against, and a view of how size falls
    /// with quality when choosing a budget.
    public func qualityCurve(_ decoded: DecodedImage, for encoded: EncodedImage) throws(ImagePipelineError) -> [Int: Int] {
        let final = encoded.width == decoded.width && encoded.height == decoded.height
            ? decoded : try decoded.fitting(edge: max(encoded.width, encoded.height))
        let pixels = try final.pixels(for: .jpeg)
        var curve: [Int: Int] = [:]
        for quality in options.minQuality...options.maxQuality {
            curve[quality] = try pixels.jpegData(quality: quality).count
        }
        return curve
    }

    static func stem(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }
}

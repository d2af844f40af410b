import Foundation

/// Turns one photo into an upload-ready image: the library entry point the CLI and uploader share.
///
/// Data flows one way: source → `DecodedImage` (upright, sRGB, in memory) → `EncodedImage` (stripped,
/// under budget). Callers that need more outputs from the same photo (thumbnails) decode once and
/// pass the `DecodedImage` on. Whatever it is given, what it returns fits `maxEdge` and `maxBytes`.
public struct ImagePreparer: Sendable {
    public let options: PrepareOptions

    /// Refuses options out of range (see `PrepareOptions.problems`) before any work.
    public init(options: PrepareOptions = PrepareOptions()) throws(ImagePipelineError) {
        self.options = try options.validated()
    }

    public func prepare(file path: String) throws(ImagePipelineError) -> EncodedImage {
        try encode(try decode(.file(path)), stem: Self.stem(of: path))
    }

    public func prepare(_ source: ImageSource, stem: String) throws(ImagePipelineError) -> EncodedImage {
        try encode(try decode(source), stem: stem)
    }

    public func decode(file path: String) throws(ImagePipelineError) -> DecodedImage {
        try decode(.file(path))
    }

    public func decode(_ source: ImageSource) throws(ImagePipelineError) -> DecodedImage {
        // A border to trim leaves less than the box: decode at twice it, so what remains still fills it.
        let edge = options.trim ? options.maxEdge * 2 : options.maxEdge
        return try DecodedImage.decode(source, maxPixels: options.maxPixels) { _ in (edge, edge) }
    }

    /// Encodes any decoded image, fitting it inside `maxEdge` first when it is larger (a decode made
    /// for bigger thumbnails, say).
    public func encode(_ decoded: DecodedImage, stem: String) throws(ImagePipelineError) -> EncodedImage {
        let decoded = options.trim ? try decoded.trimmed(threshold: RenderSpec.Trim().threshold, colour: nil) : decoded
        let sized = decoded.longEdge > options.maxEdge ? try decoded.fitting(edge: options.maxEdge) : decoded
        var warnings = PhotoShape.problems(width: sized.width, height: sized.height, minEdge: options.shrinkFloor)
        var encodes = 0
        if options.format == .png {
            let png = try ImageEncoder.encode(sized, as: .png, quality: 100, settings: EncoderSettings())
            if png.count <= options.maxBytes {
                return EncodedImage(data: png, format: .png, width: sized.width, height: sized.height,
                                    quality: nil, encodes: 1, warnings: warnings, stem: stem)
            }
            warnings.append("PNG would be \(png.count) bytes, over \(options.maxBytes); wrote JPEG instead")
            encodes = 1
        }
        let budget = BudgetEncoder(format: .jpeg, maxBytes: options.maxBytes,
                                   qualities: options.minQuality...options.maxQuality, minEdge: options.shrinkFloor,
                                   settings: EncoderSettings(progressive: options.progressive))
        let image = try budget.encode(sized)
        return EncodedImage(data: image.data, format: image.format, width: image.width, height: image.height,
                            quality: image.quality, encodes: encodes + image.encodes, warnings: warnings, stem: stem)
    }

    /// Bytes at every quality in the range, on exactly the pixels `encoded` was made from: the
    /// exhaustive answer the model-guided search is checked against, and a view of how size falls
    /// with quality when choosing a budget.
    public func qualityCurve(_ decoded: DecodedImage, for encoded: EncodedImage) throws(ImagePipelineError) -> [Int: Int] {
        let final = encoded.width == decoded.width && encoded.height == decoded.height
            ? decoded : try decoded.fitting(edge: max(encoded.width, encoded.height))
        var curve: [Int: Int] = [:]
        for quality in options.minQuality...options.maxQuality {
            curve[quality] = try ImageEncoder.encode(final, as: .jpeg, quality: quality, settings: EncoderSettings(progressive: options.progressive)).count
        }
        return curve
    }

    static func stem(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }
}

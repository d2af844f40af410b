import Foundation

/// Turns one photo into an upload-ready image: the library entry point the CLI and uploader share.
///
/// Data flows one way: source → `DecodedImage` (upright, sRGB, in memory) → `EncodedImage` (stripped,
/// under budget). Callers that need more outputs from the same photo (thumbnails) decode once and
/// pass the `DecodedImage` on. Whatever it is given, what it returns fits `maxEdge` and `maxBytes`.
public struct ImagePreparer: Sendable {
    public let options: PrepareOptions
    private let renderer: ImageRenderer

    /// Refuses options out of range (see `PrepareOptions.problems`) before any work.
    public init(options: PrepareOptions = PrepareOptions()) throws(ImagePipelineError) {
        self.options = try options.validated()
        renderer = try ImageRenderer(spec: self.options.renderSpec)
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
        try renderer.decode(source, maxPixels: options.maxPixels)
    }

    /// Renders any decoded image through the pipeline (`PrepareOptions.renderSpec`), so a decode made
    /// for bigger thumbnails is fitted too. Around it: the listing's shape rules and, with a
    /// marketplace (`--listing`), its photo rules (`Marketplace`) on the fitted pixels,
    /// and with `format: .png` the lossless image first, kept when it fits the budget whole.
    public func encode(_ decoded: DecodedImage, stem: String) throws(ImagePipelineError) -> EncodedImage {
        let sized = try renderer.pixels(decoded)
        var warnings = PhotoShape.problems(width: sized.width, height: sized.height, minEdge: options.shrinkFloor)
        if decoded.source.pages > 1 {
            warnings.append("has \(decoded.source.pages) frames or pages (an animation, say); only the first is kept, as a still photo")
        }
        let look = try PhotoLook(sized)
        warnings += look?.problems ?? []
        var frame: PhotoFrame?
        if let marketplace = options.marketplace, let measured = try PhotoFrame(sized) {
            frame = measured
            warnings += marketplace.problems(measured)
        }
        var encodes = 0
        if options.format == .png {
            var lossless = renderer.spec
            (lossless.format, lossless.maxBytes) = (.png, nil)
            let png = try ImageRenderer(spec: lossless).encode(sized)
            if png.byteCount <= options.maxBytes {
                return png.described(warnings: warnings, stem: stem, look: look, frame: frame)
            }
            warnings.append("PNG would be \(png.byteCount) bytes, over \(options.maxBytes); wrote JPEG instead")
            encodes = 1
        }
        let image = try renderer.encode(sized)
        if let target = options.targetScore, (image.score ?? 0) < target {
            warnings.append(image.score.map { "looks \(Int($0.rounded(.down)))/100, under --target-score \(String(format: "%g", target)): \(options.maxBytes) bytes allow no better" }
                ?? "had to shrink to fit \(options.maxBytes) bytes, so it was not scored against --target-score \(String(format: "%g", target))")
        }
        return image.described(warnings: warnings, stem: stem, encodesBefore: encodes, look: look, frame: frame)
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

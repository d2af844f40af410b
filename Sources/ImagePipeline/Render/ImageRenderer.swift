import Foundation

/// The one way pixels are made, for every command and the service: a decode sized for the spec, the
/// pixel steps in order, then one encode (a fixed quality or a byte budget). `prepare`, `thumbs`,
/// `serve`, `preview` and `publish` all render through this; what differs is only the `RenderSpec`.
public struct ImageRenderer: Sendable {
    public let spec: RenderSpec

    /// The pixel steps, in the order they run (imgproxy's processing pipeline): trim → rotate/flip →
    /// crop → resize → the product on white, framed (`--background white`: on the fitted pixels, not
    /// an imgproxy option) → effects → extend/pad → the output's edge limit → watermark. Each reads
    /// its own part of the spec.
    static let steps: [any RenderStep] = [TrimStep(), OrientStep(), CropStep(), ResizeStep(), BackgroundStep(), EffectsStep(), ExtendStep(),
                                          EdgeLimitStep(), WatermarkStep()]

    /// Refuses a spec out of range (see `RenderSpec.problems`) before any work.
    public init(spec: RenderSpec) throws(ImagePipelineError) {
        self.spec = try spec.validated()
    }

    /// Decodes the source at the size this spec needs, then renders it.
    public func render(_ source: ImageSource, maxPixels: Int, draft: Bool = false) throws(ImagePipelineError) -> EncodedImage {
        try render(try decode(source, maxPixels: maxPixels, draft: draft))
    }

    /// The decode this spec needs: shrunk on load as far as the box allows (`RenderSpec.decodeBox`).
    public func decode(_ source: ImageSource, maxPixels: Int, draft: Bool = false) throws(ImagePipelineError) -> DecodedImage {
        try DecodedImage.decode(source, maxPixels: maxPixels, draft: draft, frames: spec.animationFrames) { header in
            spec.decodeBox(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight)
        }
    }

    public func render(_ decoded: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        try encode(try pixels(decoded))
    }

    /// The output's pixels, before encoding: every step applied in order, to each frame of an
    /// animation (whose frames keep one size: the trim, which follows each frame's content, is skipped).
    func pixels(_ decoded: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        guard decoded.frameCount > 1 else { return try Self.applySteps(to: decoded, spec) }
        var frameSpec = spec
        frameSpec.trim = nil
        let frames = try decoded.frames().map { frame throws(ImagePipelineError) in try Self.applySteps(to: frame, frameSpec) }
        return try DecodedImage.animation(frames, timing: decoded)
    }

    private static func applySteps(to decoded: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        var image = decoded
        for step in steps { image = try step.apply(to: image, spec) }
        return image
    }

    /// The encode stage: the spec's quality, or with `maxBytes` the best quality that fits, shrinking
    /// no further than `minEdge` when even the lowest quality does not.
    func encode(_ image: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        var spec = spec
        // Too many pixels to score within its limit: the quality it would have had without a target.
        if let limit = spec.scoreLimit, spec.scoredPixelBound(uprightWidth: image.source.uprightWidth, uprightHeight: image.source.uprightHeight) == 0 {
            (spec.targetScore, spec.quality) = (nil, limit.quality)
        }
        // What a score cannot judge (an animation, PNG or GIF, an image under 8 pixels) is encoded as without one.
        if let target = spec.targetScore, PerceptualEncoder.canScore(image, as: spec.format) {
            return try PerceptualEncoder(format: spec.format, target: target, qualities: min(spec.minQuality, spec.quality)...spec.quality,
                                         maxBytes: spec.maxBytes, minEdge: spec.minEdge, settings: spec.encoder).encode(image)
        }
        guard let maxBytes = spec.maxBytes else {
            let data = try ImageEncoder.encode(image, as: spec.format, quality: spec.quality, settings: spec.encoder)
            return EncodedImage(data: data, format: spec.format, width: image.width, height: image.height / image.frameCount,
                                quality: spec.format.hasQuality ? spec.quality : nil, encodes: 1)
        }
        return try BudgetEncoder(format: spec.format, maxBytes: maxBytes, qualities: min(spec.minQuality, spec.quality)...spec.quality,
                                 minEdge: spec.minEdge, settings: spec.encoder).encode(image)
    }
}

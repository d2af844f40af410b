import Foundation
import ImagePipeline

/// The image side of the thumbnail service: for one request and its source, the format (negotiated),
/// the output spec within the service's limits, and an ETag that names exactly those bytes. Decoding and encoding go
/// through the same `ImageRenderer` as folder thumbnails, with the same limits as `prepare`.
public struct ImageProcessor: Sendable {
    public struct Limits: Sendable {
        /// Quality when the URL gives none.
        public var defaultQuality = 80
        /// A format's quality when the URL gives none, instead of `defaultQuality` (`--format-quality`,
        /// imgproxy's `IMGPROXY_FORMAT_QUALITY`, and its defaults): AVIF's and JPEG XL's scales reach
        /// JPEG's look at lower numbers.
        public var formatQuality: [OutputFormat: Int] = [.avif: 63, .jxl: 77]
        /// No output side is larger, whatever the URL asks (`--max-output-edge`).
        public var maxOutputEdge = 4096
        /// Sources with more pixels are refused from their header (`--max-pixels`).
        public var maxPixels = PrepareOptions().maxPixels
        /// A render whose estimated memory (`DecodeCost`, from the header) is larger is refused, 413
        /// (`--max-render-memory`): well under a 1 GB unit, whatever the file's format.
        public var maxRenderMemory = 256 << 20
        /// A render still running this long after a worker took it up is stopped and answered 503
        /// (`--render-timeout`, imgproxy's `IMGPROXY_TIMEOUT`); nil for none.
        public var renderTimeout: Duration? = .seconds(10)
        /// Frames of an animated GIF or WebP kept in a WebP output (`--max-animation-frames`, imgproxy's
        /// `IMGPROXY_MAX_ANIMATION_FRAMES`, whose default of 1 makes every output a still).
        public var maxAnimationFrames = 1
        /// An animated source whose frames have more pixels is refused (`--max-animation-frame-resolution`); nil: no limit but `maxPixels`.
        public var maxAnimationFramePixels: Int?
        /// The quality choice of URLs that make none (no `aq`, `q` or `fq`): `--auto-quality`, e.g.
        /// `ssimulacra2:80` (off by default). Part of their options, so of their ETags.
        public var autoQuality: ProcessingOptions.Autoquality?
        /// Outputs with more pixels are not scored for a perceptual `aq` but encoded at the quality
        /// they would have without it (`--auto-quality-max-resolution`, imgproxy's
        /// `IMGPROXY_AUTOQUALITY_MAX_RESOLUTION`, whose default is no limit): scoring holds about
        /// 112 bytes and costs 2–7 renders' CPU a pixel, so one megapixel (the list and grid sizes
        /// at 3×, with room) keeps a scored render within `maxRenderMemory`. nil: any size.
        public var autoQualityMaxPixels: Int? = 1_000_000
        /// JPEGs decoded straight to the output's scale (`--fast-decode`; see `DecodedImage.decode`).
        public var draftDecode = false
        /// AVIF for clients whose `Accept` lists it, before WebP (`--auto-avif`, imgproxy's
        /// `IMGPROXY_AUTO_AVIF`): smaller still, at more encode time.
        public var autoAVIF = false
        /// JPEG XL for clients whose `Accept` lists it (`--auto-jxl`, imgproxy's `IMGPROXY_AUTO_JXL`;
        /// Safari 17 and iOS 17 send it), before AVIF and WebP.
        public var autoJXL = false
        /// Progressive JPEGs (`--baseline-jpeg` off) and the AVIF and JPEG XL efforts.
        public var encoder = EncoderSettings()

        public init() {}
    }

    public let limits: Limits
    /// The service's settings that change output bytes, as they are set (`ServiceSetting.OutputEffect.inETag`):
    /// part of every ETag.
    let outputSettings: [String]

    public init(_ configuration: ServiceConfiguration = ServiceConfiguration()) {
        limits = configuration.limits
        outputSettings = ServiceSetting.outputIdentity(of: configuration)
    }

    /// The format of the response: the URL's, else JPEG XL (with `autoJXL`), AVIF (with `autoAVIF`)
    /// or WebP when the client accepts it, else PNG for a source with transparency and no byte
    /// budget, else JPEG.
    public func format(for options: ProcessingOptions, accept: String?, sourceHasAlpha: Bool) -> (format: OutputFormat, negotiated: Bool) {
        if let format = options.format { return (format, false) }
        if limits.autoJXL, Self.accepts(accept, "image/jxl") { return (.jxl, true) }
        if limits.autoAVIF, Self.accepts(accept, "image/avif") { return (.avif, true) }
        if Self.accepts(accept, "image/webp") { return (.webp, true) }
        return (sourceHasAlpha && !options.hasByteBudget ? .png : .jpeg, true)
    }

    /// The most pixels a source may have for this request: the service's limit, or the URL's `msr`
    /// when lower (a URL can never raise it).
    func maxPixels(_ request: ProcessingOptions.RequestLimits) -> Int {
        min(limits.maxPixels, request.sourcePixels ?? .max)
    }

    /// The most pixels a frame of an animated source may have, likewise with `mafr`; nil for none.
    func maxFramePixels(_ request: ProcessingOptions.RequestLimits) -> Int? {
        [limits.maxAnimationFramePixels, request.animationFramePixels].compactMap { $0 }.min()
    }

    /// The URL's options with the service's quality choice where they make none.
    public func applyingDefaults(to options: ProcessingOptions) -> ProcessingOptions {
        guard let autoQuality = limits.autoQuality, options.autoquality == nil, options.quality == nil, options.formatQuality.isEmpty else { return options }
        var options = options
        options.autoquality = autoQuality
        return options
    }

    /// The entity tag of the output, computable before any work so `If-None-Match` costs nothing:
    /// the source's identity and fingerprint (size and modification time, or an origin's ETag), the
    /// normalised options and the format, and every setting of the service's that changes bytes.
    public func etag(source: String, fingerprint: String, options: ProcessingOptions, format: OutputFormat) -> String {
        let identity = [source, fingerprint, options.canonical(format: format, defaultQuality: defaultQuality(for: format))] + outputSettings
        return "\"" + Fingerprint.hex(identity.joined(separator: "\n")) + "\""
    }

    /// The format for a source: as `format(for:accept:sourceHasAlpha:)`, asking whether the source has
    /// transparency (which may read its header) only when that decides.
    public func format(for options: ProcessingOptions, accept: String?,
                       sourceHasAlpha: () throws(ImagePipelineError) -> Bool) throws(ImagePipelineError) -> (format: OutputFormat, negotiated: Bool) {
        let direct = format(for: options, accept: accept, sourceHasAlpha: false)
        guard direct.negotiated, direct.format == .jpeg, !options.hasByteBudget else { return direct }
        return format(for: options, accept: accept, sourceHasAlpha: try sourceHasAlpha())
    }

    /// What the renderer makes for these options in `format`, within this processor's limits.
    public func spec(for options: ProcessingOptions, format: OutputFormat) throws(ProcessingError) -> RenderSpec {
        var spec = try options.spec(format: format, defaultQuality: defaultQuality(for: format), maxOutputEdge: limits.maxOutputEdge)
        spec.encoder = limits.encoder
        spec.frames = min(limits.maxAnimationFrames, options.limits.animationFrames ?? .max)
        if let autoquality = options.autoquality, autoquality.targetScore != nil, let maxPixels = limits.autoQualityMaxPixels {
            let quality = options.quality(for: format, default: defaultQuality(for: format))
            spec.scoreLimit = RenderSpec.ScoreLimit(maxPixels: maxPixels, quality: min(max(quality, autoquality.qualities.lowerBound), autoquality.qualities.upperBound))
        }
        return spec
    }

    private func defaultQuality(for format: OutputFormat) -> Int {
        limits.formatQuality[format] ?? limits.defaultQuality
    }

    /// Whether an `Accept` header lists `type` with a non-zero quality. Parameters are read as RFC
    /// 9110 writes them, with optional whitespace around `;` and `=`: `image/webp ; q = 0` refuses.
    static func accepts(_ accept: String?, _ type: String) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == type else { return false }
            let quality = parts.dropFirst().lazy.compactMap { parameter -> Double? in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0] == "q" ? Double(pair[1]) ?? 0 : nil
            }.first ?? 1
            return quality > 0
        }
    }
}

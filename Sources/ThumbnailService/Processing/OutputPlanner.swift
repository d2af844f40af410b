import Foundation
import ImagePipeline

/// What one request's output will be, decided before any pixel work: its format (negotiated), its
/// render spec within the service's limits, and an ETag that names exactly those bytes. The render
/// itself is `ImageRenderer`'s, as for folder thumbnails, with the same limits as `prepare`.
public struct OutputPlanner: Sendable {
    public let limits: RenderLimits
    /// The service's settings that change output bytes, as they are set (`ServiceSetting.OutputEffect.inETag`):
    /// part of every ETag.
    let outputSettings: [String]

    public init(_ configuration: ServiceConfiguration = ServiceConfiguration()) {
        limits = configuration.limits
        outputSettings = ServiceSetting.outputIdentity(of: configuration)
    }

    /// The format of the response: the URL's; else JPEG XL (with `autoJXL`), AVIF (with `autoAVIF`)
    /// or WebP when the client accepts it; else imgproxy's preferred-formats rule
    /// (`preferredFormat(for:source:)`), the only choice that asks for `source` (which may read its header).
    public func format<Failure: Error>(for options: ProcessingOptions, accept: String?,
                                       source: () throws(Failure) -> SourceTraits) throws(Failure) -> (format: OutputFormat, negotiated: Bool) {
        if let format = options.format { return (format, false) }
        if limits.autoJXL, Self.accepts(accept, "image/jxl") { return (.jxl, true) }
        if limits.autoAVIF, Self.accepts(accept, "image/avif") { return (.avif, true) }
        if Self.accepts(accept, "image/webp") { return (.webp, true) }
        return (preferredFormat(for: options, source: try source()), true)
    }

    /// imgproxy's rule for an output neither the URL nor `Accept` chose (`IMGPROXY_PREFERRED_FORMATS`):
    /// the source's own format when it is preferred and fits, else the first preferred format that
    /// fits, else the first preferred. A format fits when it keeps what the output has: transparency,
    /// and an animation (a source of several frames where more than one is kept). A byte budget
    /// (`mb`, `aq:size`) takes a format with a quality to lower, JPEG if none is preferred: the budget
    /// is never exceeded here, where imgproxy's PNG and GIF ignore it.
    func preferredFormat(for options: ProcessingOptions, source: SourceTraits) -> OutputFormat {
        let budget = options.hasByteBudget
        let animated = source.animated && !budget && min(limits.maxAnimationFrames, options.limits.animationFrames ?? .max) > 1
        let candidates = limits.preferredFormats.filter { !budget || $0.hasQuality }
        func fits(_ format: OutputFormat) -> Bool { (!source.hasAlpha || format.keepsAlpha) && (!animated || format.animates) }
        if let own = source.format, candidates.contains(own), fits(own) { return own }
        return candidates.first(where: fits) ?? candidates.first ?? .jpeg
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

    /// What the renderer makes for these options in `format`, within this planner's limits.
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

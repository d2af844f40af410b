import Foundation
import ImagePipeline

/// What a thumbnail-service URL asks for, in imgproxy's option names (`rs:fill:240:240`, `g:sm`,
/// `dpr:3`, `q:80`, `mb:20000`, `f:webp`, `pr:list`, …). Options apply left to right, a later one
/// overriding an earlier one, and a preset expands where it stands, as in imgproxy. Unlike imgproxy,
/// anything malformed or unknown is an error naming the option (the service answers 400), and values
/// are bounded where they are parsed, so no number reaches libvips unchecked.
@dynamicMemberLookup
public struct ProcessingOptions: Sendable, Equatable {
    /// The pixel steps as the URL gives them: the render spec in points, at `dpr` 1. `spec` scales
    /// its sizes, offsets and padding by `dpr` and adds the format and quality; every other step
    /// (resizing, gravity, crop, rotation, effects, extension, trim, framing…) goes to the renderer
    /// as written. A pixel option is so a field once, in `RenderSpec`, read and written here as if it
    /// were this type's own (`options.width`, `options.blur`).
    public var steps = RenderSpec()

    public subscript<Value>(dynamicMember path: WritableKeyPath<RenderSpec, Value>) -> Value {
        get { steps[keyPath: path] }
        set { steps[keyPath: path] = newValue }
    }

    /// Scales the box, minimum sizes, pixel offsets and padding to output pixels.
    public var dpr = 1.0
    /// nil: the service's default.
    public var quality: Int?
    /// `format_quality`/`fq:format:quality:…`: the quality per output format when `quality` is unset.
    public var formatQuality: [OutputFormat: Int] = [:]
    /// `filename`/`fn` and `return_attachment`/`att`: the `Content-Disposition` header (none when
    /// neither is given, so a local file's name is never sent unasked).
    public var filename: String?
    public var returnAttachment = false
    /// `raw`, and `skip_processing`/`skp:ext:…`: the source's own bytes instead of a render (see
    /// `EncodedImage.unprocessed`); `skp` only when the output format is the source's.
    public var raw = false
    public var skipProcessing: Set<OutputFormat> = []
    /// `watermark`/`wm:opacity:position:x:y:scale`: the watermark drawn over the output (its image is
    /// the service's, or `watermarkSource`'s).
    public var watermark: Watermark?
    /// `watermark_url`/`wmu` (imgproxy Pro's): the watermark's source, base64url in the URL, any
    /// source this service serves (a shop's logo under the root, or from an allowed origin).
    public var watermarkSource: String?

    public struct Watermark: Sendable, Equatable {
        public var opacity: Double
        public var placement: RenderSpec.Watermark.Placement
        /// Pixels (in points, scaled by `dpr`) when at least 1, fractions of the output when less.
        public var offset: RenderSpec.Offset
        public var scale: Double
    }

    /// `max_src_resolution`/`msr` (pixels), `max_src_file_size`/`msfs` (bytes),
    /// `max_result_dimension`/`mrd` (pixels), `max_animation_frames`/`maf`,
    /// `max_animation_frame_resolution`/`mafr` (pixels): imgproxy's security options, allowed only
    /// when the service allows them, and only ever lowering its own limits.
    public var limits = RequestLimits()

    public struct RequestLimits: Sendable, Equatable {
        public var sourcePixels: Int?
        public var sourceBytes: Int?
        public var resultDimension: Int?
        public var animationFrames: Int?
        public var animationFramePixels: Int?
        public init() {}
    }
    /// `autoquality`/`aq:method:target:min:max:allowed_error` (imgproxy Pro's option): the quality
    /// chosen from `min` to `max` by `size` (the best whose output fits `target` bytes; overrides
    /// `max_bytes`) or `ssimulacra2` (ours: the smallest whose output scores at least `target` less
    /// `allowed_error`; `max_bytes` still caps). Overrides `quality`.
    public var autoquality: Autoquality?

    /// Whether the output has a byte budget (`mb` or `aq:size`), which rules out PNG and GIF where the
    /// service chooses the format: they have no quality to lower.
    public var hasByteBudget: Bool { steps.maxBytes != nil || autoquality?.maxBytes != nil }

    public struct Autoquality: Sendable, Equatable {
        public enum Method: Sendable, Equatable {
            case size(Int)
            case ssimulacra2(Double)
        }

        public var method: Method
        public var qualities: ClosedRange<Int>
        /// How far under the target a score may fall (`ssimulacra2`).
        public var allowedError = 0.0

        public init(maxBytes: Int, qualities: ClosedRange<Int>) {
            (method, self.qualities) = (.size(maxBytes), qualities)
        }

        public init(score: Double, qualities: ClosedRange<Int>, allowedError: Double = 0) {
            (method, self.qualities, self.allowedError) = (.ssimulacra2(score), qualities, allowedError)
        }

        /// The byte target of `size`.
        public var maxBytes: Int? { if case .size(let bytes) = method { bytes } else { nil } }
        /// The score a `ssimulacra2` output must reach, its allowed error taken off.
        public var targetScore: Double? { if case .ssimulacra2(let score) = method { score - allowedError } else { nil } }
    }
    /// nil: negotiated from the request's `Accept`.
    public var format: OutputFormat?
    public var expires: Date?
    /// Changes the URL, and so any cache key derived from it, but not the image.
    public var cacheBuster = ""

    public init() {}

    public static let dprRange = 0.01...8.0
    /// The `dpr` values a URL may give under `onlyPresets` unless configured otherwise: the phones'.
    public static let presetDPRs: Set<Double> = [1, 2, 3]
    static let sizeRange = 0...65_535
    /// The largest `blur` and `sharpen` sigma: a mask hundreds of pixels wide is already a render
    /// that `--render-timeout` stops.
    static let sigmaLimit = 100.0
    static let presetDepthLimit = 4

    /// The thumbnail variants and the upload image as presets: `pr:list/dpr:3` asks for the 240 px
    /// square `thumbs` calls `list@3x`, `pr:upload` for what `prepare` makes by default (the same
    /// bytes: the same `RenderSpec`, from `PrepareOptions`).
    public static let standardPresets: [String: String] = {
        let upload = PrepareOptions()
        var presets = ["upload": "rs:fit:\(upload.maxEdge):\(upload.maxEdge)/aq:size:\(upload.maxBytes):\(upload.minQuality):\(upload.maxQuality)/f:jpg",
                       // The whole product in a square grid cell, on its own edge colour (`thumbs --crop pad`).
                       "card": "rs:fit:200:200/ex:1/bg:auto/q:\(ThumbnailOptions().quality)"]
        // Exactly what `thumbs` makes with its defaults: same crop, same master square, same quality,
        // so `pr:list/dpr:3/f:jpg` is byte for byte `list@3x.jpg`.
        let thumbnails = ThumbnailOptions()
        let master = thumbnails.sizes.first?.pixels ?? 600
        for variant in thumbnails.variants {
            presets[variant.name] = "rs:fill-down:\(variant.points):\(variant.points)/g:\(thumbnails.crop == .attention ? "sm" : "ce")"
                + "/fr:\(master)/q:\(thumbnails.quality)"
        }
        return presets
    }()

    /// Applies one `name:arg:…` segment, by the option table (`OptionTable`).
    mutating func apply(_ segment: String, presets: [String: String], depth: Int = 0) throws(ProcessingError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let definition = OptionTable.definition(named: parts[0]) else { throw .unknownOption(parts[0]) }
        try definition.apply(&self, OptionArguments(name: parts[0], arguments: Array(parts.dropFirst())), presets, depth)
    }

    /// `w:h:enlarge:extend` from position `start` of a meta-option; empty arguments are skipped.
    mutating func applySize(_ option: OptionArguments, from start: Int) throws(ProcessingError) {
        if let value = option[start] { steps.width = try option.integer(value, in: Self.sizeRange) }
        if let value = option[start + 1] { steps.height = try option.integer(value, in: Self.sizeRange) }
        if let value = option[start + 2] { steps.enlarge = try option.boolean(value) }
        if let value = option[start + 3] { steps.extend = try option.boolean(value) }
    }

    /// `bg:R:G:B`, `bg:RRGGBB` or `bg:auto`.
    static func background(_ option: OptionArguments) throws(ProcessingError) -> RenderSpec.Background {
        let expected = "R:G:B (0–255 each), a hex colour like ffffff, or auto"
        switch option.arguments.count {
        case 1 where option[0] == "auto":
            return .edge
        case 1:
            let hex = option[0] ?? ""
            guard hex.count == 6, let value = Int(hex, radix: 16) else { throw option.invalid(hex, expected) }
            return .colour(red: value >> 16 & 255, green: value >> 8 & 255, blue: value & 255)
        case 3:
            let rgb = try option.arguments.map { value throws(ProcessingError) in try option.integer(value, in: 0...255) }
            return .colour(red: rgb[0], green: rgb[1], blue: rgb[2])
        default:
            throw option.invalid(option.arguments.joined(separator: ":"), expected)
        }
    }

    /// An `aq` value as a setting gives it (`ssimulacra2:80`, `size:20000:60:85`).
    public static func autoquality(parsing text: String) throws(ProcessingError) -> Autoquality? {
        try autoquality(OptionArguments(name: "auto-quality", arguments: text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)))
    }

    /// `aq:none`, `aq:size:bytes:min:max`, or `aq:ssimulacra2:score:min:max:allowed_error`. Left-out
    /// qualities are imgproxy's defaults for `size` (70 and 80) and a wide range for a score to
    /// choose from (30 and 95).
    static func autoquality(_ option: OptionArguments) throws(ProcessingError) -> Autoquality? {
        try option.expect(atMost: 5)
        func quality(_ index: Int, default value: Int) throws(ProcessingError) -> Int {
            guard let text = option[index] else { return value }
            return try option.integer(text, in: RenderSpec.qualityRange)
        }
        func qualities(_ defaults: ClosedRange<Int>) throws(ProcessingError) -> ClosedRange<Int> {
            let (low, high) = (try quality(2, default: defaults.lowerBound), try quality(3, default: defaults.upperBound))
            guard low <= high else { throw option.invalid("\(low):\(high)", "a minimum quality at most the maximum") }
            return low...high
        }
        switch option[0] ?? "" {
        case "none":
            return nil
        case "size":
            guard let target = option[1] else { throw option.invalid("", "a byte size after size:") }
            return .init(maxBytes: try option.integer(target, in: RenderSpec.bytesRange), qualities: try qualities(70...80))
        case "ssimulacra2":
            guard let target = option[1] else { throw option.invalid("", "a score after ssimulacra2: (90 visually lossless, 80 very high, 70 high)") }
            return .init(score: try option.number(target, in: 10...100), qualities: try qualities(30...95),
                         allowedError: try option.number(at: 4, in: 0...10) ?? 0)
        default:
            throw option.invalid(option[0] ?? "", "size, ssimulacra2 or none")
        }
    }

    static func format(_ name: String) throws(ProcessingError) -> OutputFormat {
        if let unwritten = UnwrittenFormat(rawValue: name.lowercased()) { throw .formatNotWritten(unwritten) }
        guard let format = OutputFormat(name: name) else {
            let names = OutputFormat.allCases.map(\.fileExtension)
            throw .invalidArgument(option: "format", value: name, expected: names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1])
        }
        return format
    }

    /// The output as the renderer takes it, once the format is settled: the box scaled by `dpr` and
    /// bounded by the service's largest edge, which also bounds outputs the URL leaves unsized.
    public func spec(format: OutputFormat, defaultQuality: Int, maxOutputEdge: Int) throws(ProcessingError) -> RenderSpec {
        // `mrd` lowers the edge limit; a box past it is scaled down whole, as imgproxy's `dpr` would be.
        let maxOutputEdge = min(maxOutputEdge, limits.resultDimension ?? maxOutputEdge)
        let (width, height, padding, zoom) = (steps.width, steps.height, steps.padding, steps.zoom)
        let requested = max(Double(width) * zoom.x + Double(padding.right + padding.left), Double(height) * zoom.y + Double(padding.top + padding.bottom)) * dpr
        let dpr = limits.resultDimension != nil && requested > Double(maxOutputEdge) ? dpr * Double(maxOutputEdge) / requested : dpr
        let rounding: FloatingPointRoundingRule = limits.resultDimension == nil ? .toNearestOrAwayFromZero : .down
        func pixels(_ points: Int, _ zoom: Double, _ name: String) throws(ProcessingError) -> Int {
            let value = (Double(points) * dpr * zoom).rounded(rounding)
            // A fit never enlarges past the source, so a box beyond the limit is the limit (imgproxy
            // clamps too); a crop or a forced size beyond it would change the shape, so it is refused.
            if steps.resizing == .fit, !steps.enlarge, value > Double(maxOutputEdge) { return maxOutputEdge }
            guard value <= Double(maxOutputEdge) else {
                throw .invalidArgument(option: name, value: "\(points) at dpr \(dpr)", expected: "at most \(maxOutputEdge) pixels")
            }
            return Int(value)
        }
        var spec = steps
        (spec.width, spec.height) = (try pixels(width, zoom.x, "width"), try pixels(height, zoom.y, "height"))
        (spec.format, spec.quality) = (format, quality(for: format, default: defaultQuality))
        if steps.gravity != .focusPoint {
            spec.gravityOffset = RenderSpec.Offset(x: scaledOffset(steps.gravityOffset.x), y: scaledOffset(steps.gravityOffset.y))
        }
        spec.zoom = width == 0 && height == 0 ? zoom : RenderSpec.Offset(x: 1, y: 1)
        (spec.minWidth, spec.minHeight) = (min(try pixels(steps.minWidth, 1, "min-width"), maxOutputEdge), min(try pixels(steps.minHeight, 1, "min-height"), maxOutputEdge))
        if let autoquality {
            (spec.minQuality, spec.quality) = (autoquality.qualities.lowerBound, autoquality.qualities.upperBound)
            spec.maxBytes = autoquality.maxBytes ?? spec.maxBytes
            spec.targetScore = autoquality.targetScore
        }
        spec.maxEdge = maxOutputEdge
        func scaled(_ side: Int) -> Int { Int((Double(side) * dpr).rounded(rounding)) }
        spec.padding = RenderSpec.Padding(top: scaled(padding.top), right: scaled(padding.right), bottom: scaled(padding.bottom), left: scaled(padding.left))
        if let framing = steps.framing, framing > maxOutputEdge {
            throw .invalidArgument(option: "framing", value: String(framing), expected: "at most \(maxOutputEdge) pixels")
        }
        return spec
    }

    /// The watermark as the renderer draws it, from its image's bytes; the service's base opacity
    /// times the URL's.
    public func watermark(image: Data, baseOpacity: Double) -> RenderSpec.Watermark? {
        guard let watermark else { return nil }
        return RenderSpec.Watermark(image: image, opacity: watermark.opacity * baseOpacity, placement: watermark.placement,
                                    offset: RenderSpec.Offset(x: scaledOffset(watermark.offset.x), y: scaledOffset(watermark.offset.y)),
                                    scale: watermark.scale)
    }

    /// The quality for `format`: the URL's `quality`, else its `format_quality` for the format, else
    /// the service's default for it.
    public func quality(for format: OutputFormat, default defaultQuality: Int) -> Int {
        quality ?? formatQuality[format] ?? defaultQuality
    }

    /// A gravity offset in pixels at this `dpr` (a fraction stays one; a pixel offset that rounds
    /// below one pixel is none, never a fraction).
    private func scaledOffset(_ value: Double) -> Double {
        guard abs(value) >= 1 else { return value }
        let pixels = (value * dpr).rounded()
        return abs(pixels) >= 1 ? pixels : 0
    }

    /// Everything that decides the output's bytes, in one stable string: for cache keys and ETags.
    /// Each option that owns a part of the output writes its part (`OptionTable`).
    public func canonical(format: OutputFormat, defaultQuality: Int) -> String {
        OptionTable.definitions.compactMap { $0.canonical?(self, format, defaultQuality) }.filter { !$0.isEmpty }.joined(separator: "/")
    }
}

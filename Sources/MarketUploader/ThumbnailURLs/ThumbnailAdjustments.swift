import Foundation

/// What an app may ask of a thumbnail beyond its preset, in imgproxy's option names and in the order
/// the service writes its canonical form (so two apps asking the same thing build the same URL, one
/// cache entry): a turn, a blur (the soft placeholder behind a loading cell), a sharpen, a watermark
/// (a shop's logo), and a quality per format. A service started with `--only-presets` refuses these
/// from a URL: they need signed URLs, or a preset that holds them.
public struct ThumbnailAdjustments: Sendable, Equatable {
    /// Degrees clockwise, a multiple of 90.
    public var rotation = 0
    /// Gaussian blur sigma in pixels (0: none).
    public var blur = 0.0
    /// Sharpen sigma (0: none).
    public var sharpen = 0.0
    public var watermark: Watermark?
    /// Quality by format (`jpg`, `webp`, `avif`, `jxl`, `png`) when the URL fixes none, imgproxy's `fq`.
    public var formatQuality: [String: Int] = [:]

    public struct Watermark: Sendable, Equatable {
        /// 0 to 1, times the service's own opacity.
        public var opacity: Double
        /// `ce`, `no`, `so`, `ea`, `we`, `noea`, `nowe`, `soea`, `sowe`, or `re` to tile it.
        public var position: String
        public var offsetX: Double
        public var offsetY: Double
        /// The watermark's size as a fraction of the thumbnail's (0: its own size).
        public var scale: Double
        /// The image drawn (a shop's logo, as any source the service serves); nil: the service's own.
        public var source: String?

        public init(opacity: Double = 1, position: String = "soea", offsetX: Double = 0, offsetY: Double = 0, scale: Double = 0, source: String? = nil) {
            (self.opacity, self.position, self.offsetX, self.offsetY, self.scale, self.source) = (opacity, position, offsetX, offsetY, scale, source)
        }
    }

    public init(rotation: Int = 0, blur: Double = 0, sharpen: Double = 0, watermark: Watermark? = nil, formatQuality: [String: Int] = [:]) {
        (self.rotation, self.blur, self.sharpen, self.watermark, self.formatQuality) = (rotation, blur, sharpen, watermark, formatQuality)
    }

    /// The options, in the service's canonical order; none for what is left at its default.
    public var options: [String] {
        var options: [String] = []
        if rotation % 360 != 0 { options.append("rot:\(rotation)") }
        if blur > 0 { options.append("bl:\(Self.number(blur))") }
        if sharpen > 0 { options.append("sh:\(Self.number(sharpen))") }
        if !formatQuality.isEmpty {
            options.append("fq:" + formatQuality.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ":"))
        }
        if let watermark {
            options.append("wm:" + [Self.number(watermark.opacity), watermark.position, Self.number(watermark.offsetX),
                                    Self.number(watermark.offsetY), Self.number(watermark.scale)].joined(separator: ":"))
            if let source = watermark.source { options.append("wmu:" + ThumbnailURLSigner.base64URL(Array(source.utf8))) }
        }
        return options
    }

    /// `2` rather than `2.0`, as a person would write it.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

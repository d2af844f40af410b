import Foundation

/// One output image as a screen asks for it: a box, how to fit the photo into it, and the encoding.
/// The names follow imgproxy's processing options, so a service URL maps onto this one to one.
public struct RenderSpec: Sendable, Hashable, Codable {
    public enum Resizing: String, Sendable, Hashable, Codable, CaseIterable {
        /// Inside the box, keeping the aspect ratio.
        case fit
        /// Covers the box and is cropped to it. Without `enlarge`, a smaller photo is cropped to what
        /// of the box it can fill.
        case fill
        /// As `fill`, but a smaller photo keeps the box's aspect ratio (a square stays a square).
        case fillDown = "fill-down"
        /// Exactly the box, the aspect ratio ignored.
        case force
        /// `fill` when the photo and the box are both landscape or both portrait, else `fit`.
        case auto
    }

    /// Which part of the photo a crop keeps.
    public enum Gravity: String, Sendable, Hashable, Codable, CaseIterable {
        case centre = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// The most salient region (libvips' attention crop): the product, not the table it stands on.
        case attention = "sm"
        /// Centred on a point given as fractions of the width and height (`gravityOffset`), as far as
        /// the edges allow.
        case focusPoint = "fp"
    }

    /// A gravity's offset (imgproxy's `g:type:x:y`): a value of at least 1 (or at most −1) is pixels,
    /// one between is a fraction of the image's side; east and south offsets move inwards. For
    /// `.focusPoint`, the point itself (0–1 of each side).
    public struct Offset: Sendable, Hashable, Codable {
        public var x = 0.0, y = 0.0
        public init(x: Double = 0, y: Double = 0) { (self.x, self.y) = (x, y) }

        /// imgproxy's reading of a length along a side `side` pixels long: pixels when at least 1 (or
        /// at most −1), times `scale`; a fraction of the side when between.
        static func pixels(_ value: Double, along side: Int, scale: Double = 1) -> Int {
            abs(value) >= 1 ? Int((value * scale).rounded()) : Int((Double(side) * value).rounded())
        }
    }

    /// An area cut from the photo before it is resized (imgproxy's `crop`): each side in the upright
    /// source's pixels when at least 1, a fraction of it when less, the whole side when 0; placed by
    /// its own gravity, or the spec's when nil.
    public struct Crop: Sendable, Hashable, Codable {
        public var width: Double, height: Double
        public var gravity: Gravity?
        public var offset = Offset()
        public init(width: Double, height: Double, gravity: Gravity? = nil, offset: Offset = Offset()) {
            (self.width, self.height, self.gravity, self.offset) = (width, height, gravity, offset)
        }

        /// The side in pixels of an image `side` pixels long, at `scale` pixels per source pixel.
        func side(_ value: Double, of side: Int, scale: Double) -> Int {
            value == 0 ? side : min(side, max(1, Offset.pixels(value, along: side, scale: scale)))
        }
    }

    /// Target box in pixels; 0 leaves that side free (both 0: the photo's own size).
    public var width = 0
    public var height = 0
    public var resizing = Resizing.fit
    public var gravity = Gravity.centre
    public var gravityOffset = Offset()
    public var enlarge = false
    /// Cut first, before the resize (see `Crop`).
    public var crop: Crop?
    /// The output is never narrower or lower than this (imgproxy's `min-width`, `min-height`), enlarged
    /// if need be, whatever `enlarge` says; a fill still crops to the box.
    public var minWidth = 0
    public var minHeight = 0
    /// An unsized output's scale (imgproxy's `zoom` without a size; with one, it scales the box).
    public var zoom = Offset(x: 1, y: 1)
    /// Quarter turns clockwise, in degrees (0, 90, 180, 270), then mirrored: applied to the upright
    /// photo before it is cut or resized, so the box and gravity are those of the turned image.
    public var rotation = 0
    public var flipHorizontal = false
    public var flipVertical = false
    /// Effects on the resized photo: a Gaussian blur and a sharpen of this sigma (0: none), blocks of
    /// this many pixels (`pixelate`; 0 or 1: none).
    public var blur = 0.0
    public var sharpen = 0.0
    public var pixelate = 0
    public var format = OutputFormat.jpeg
    /// Encoder quality; with `maxBytes`, the highest quality tried.
    public var quality = 80
    /// With `maxBytes`, the lowest quality tried before the image shrinks instead.
    public var minQuality = 40
    /// When set, the output is never larger: quality falls, then the pixels shrink.
    public var maxBytes: Int?
    /// When set, the quality is the smallest in `minQuality...quality` whose output scores at least
    /// this by SSIMULACRA2 against the pixels it was made from (`PerceptualEncoder`); `maxBytes` still caps.
    public var targetScore: Double?
    /// Outputs with more pixels (by `outputPixelBound` of the source, so the service admits a render
    /// by the same rule) are not scored but encoded at the limit's quality (imgproxy's
    /// `IMGPROXY_AUTOQUALITY_MAX_RESOLUTION`): a score holds `DecodeCost.scoringBytesPerPixel` and
    /// costs CPU for every output pixel of every attempt. nil: any size is scored.
    public var scoreLimit: ScoreLimit?

    public struct ScoreLimit: Sendable, Hashable, Codable {
        public var maxPixels: Int
        /// The quality of an output too large to score, as if the target were not given.
        public var quality: Int

        public init(maxPixels: Int, quality: Int) {
            (self.maxPixels, self.quality) = (maxPixels, quality)
        }
    }

    /// The most output pixels a perceptual search scores for a source of this upright size: the
    /// output's bound, or none without a target or past `scoreLimit`.
    public func scoredPixelBound(uprightWidth: Int, uprightHeight: Int) -> Int {
        guard targetScore != nil, format.hasQuality else { return 0 }
        let bound = outputPixelBound(uprightWidth: uprightWidth, uprightHeight: uprightHeight)
        return bound <= scoreLimit?.maxPixels ?? .max ? bound : 0
    }
    /// With `maxBytes`, the long edge the pixels shrink no further than: the budget fails instead.
    public var minEdge = RenderSpec.minimumEdge
    /// When set, the photo is first cut to a square of this many pixels (as `fill-down` with the
    /// gravity) and the output is fitted from that square: how `thumbs` cuts every variant from one
    /// crop, so a list row and a grid cell show the same framing.
    public var framing: Int?
    /// When set, no side of the output is larger, whatever the rest asks: a URL with no size, a
    /// forced or one-sided box on a sliver, all fit into it (the service's `--max-output-edge`).
    public var maxEdge: Int?
    /// A fit smaller than the box is centred on a canvas of the box's size (imgproxy's `extend`).
    public var extend = false
    /// As `extend`, to the box's aspect ratio rather than its size (`extend_aspect_ratio`).
    public var extendAspectRatio = false
    /// Pixels added around the output (`padding`), after any extension.
    public var padding = Padding()
    /// What extension and padding are filled with.
    public var background = Background.colour(red: 255, green: 255, blue: 255)
    /// A uniform border cut off before resizing (imgproxy's `trim`), so a product shot on a sweep
    /// fills its box.
    public var trim: Trim?
    /// The product cut out by the segmentation model onto pure white and framed in a square
    /// (`BackgroundStep`); nil leaves the photo's own background. `prepare`'s `--background white`.
    public var productBackground: ProductBackground?

    public struct Trim: Sendable, Hashable, Codable {
        /// How far from the border colour a pixel may be and still count as border (0–255).
        public var threshold = 10.0
        /// The border's colour; `.edge` reads it from the photo's outermost ring.
        public var colour = Background.edge
        public var equalHorizontal = false
        public var equalVertical = false
        public init(threshold: Double = 10, colour: Background = .edge, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            (self.threshold, self.colour, self.equalHorizontal, self.equalVertical) = (threshold, colour, equalHorizontal, equalVertical)
        }
    }

    public struct Padding: Sendable, Hashable, Codable {
        public var top = 0, right = 0, bottom = 0, left = 0
        public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }
        var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }

    public enum Background: Sendable, Hashable, Codable {
        case colour(red: Int, green: Int, blue: Int)
        /// The mean colour of the resized photo's outermost ring of pixels (`bg:auto`).
        case edge

        /// The colour as RGB, nil for `.edge` (read from the image).
        var rgb: [Double]? {
            switch self {
            case .colour(let red, let green, let blue): [Double(red), Double(green), Double(blue)]
            case .edge: nil
            }
        }
    }
    /// Frames of an animated GIF or WebP kept (imgproxy's `max_animation_frames`): an animated WebP
    /// when the output is WebP with no byte budget and this is above 1, otherwise the first frame as
    /// a still.
    public var frames = 1

    /// The most frames this output keeps of an animation. A byte budget may shrink the pixels,
    /// which an animation's frames cannot share: a still then.
    public var animationFrames: Int { format.animates && maxBytes == nil ? max(1, frames) : 1 }

    /// An image drawn over the output last, after padding (imgproxy's `watermark`).
    public var watermark: Watermark?

    public struct Watermark: Sendable, Hashable, Codable {
        /// Where it goes: at a gravity (offsets as `Offset`, in the output's pixels when at least 1,
        /// moving inwards from the edge named, and it may hang over the edge), or tiled over the whole
        /// output with the offsets as the spacing between tiles.
        public enum Placement: Sendable, Hashable, Codable {
            case gravity(Gravity)
            case replicate
        }

        /// The watermark's encoded bytes (a logo: PNG with transparency, usually); decoded per render
        /// through the same decode as any source, so it is upright and sRGB.
        public var image: Data
        /// 0 (invisible) to 1 (as the image's own alpha says).
        public var opacity: Double
        public var placement = Placement.gravity(.centre)
        public var offset = Offset()
        /// Fitted (enlarged if need be) into this fraction of the output's size; 0 keeps its own size.
        public var scale = 0.0

        public init(image: Data, opacity: Double, placement: Placement = .gravity(.centre), offset: Offset = Offset(), scale: Double = 0) {
            (self.image, self.opacity, self.placement, self.offset, self.scale) = (image, opacity, placement, offset, scale)
        }
    }

    /// Progressive JPEG, AVIF effort (see `EncoderSettings`).
    public var encoder = EncoderSettings()

    public init(width: Int = 0, height: Int = 0, resizing: Resizing = .fit, gravity: Gravity = .centre,
                enlarge: Bool = false, format: OutputFormat = .jpeg, quality: Int = 80, maxBytes: Int? = nil) {
        self.width = width
        self.height = height
        self.resizing = resizing
        self.gravity = gravity
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.maxBytes = maxBytes
    }

    public static let edgeRange = 0...65_535
    public static let qualityRange = PrepareOptions.qualityRange
    public static let bytesRange = 256...(1 << 30)
    /// The smallest edge a budget may shrink an output to.
    public static let minimumEdge = 16

    /// Every value out of range, as `invalidOption` errors named like imgproxy's options.
    public var problems: [ImagePipelineError] {
        [
            ImagePipelineError.outOfRange("width", width, Self.edgeRange),
            .outOfRange("height", height, Self.edgeRange),
            .outOfRange("quality", quality, Self.qualityRange),
            .outOfRange("min-quality", minQuality, Self.qualityRange),
            maxBytes.flatMap { .outOfRange("max_bytes", $0, Self.bytesRange) },
            .outOfRange("min-edge", minEdge, 1...Self.edgeRange.upperBound),
            framing.flatMap { .outOfRange("framing", $0, 1...Self.edgeRange.upperBound) },
            maxEdge.flatMap { .outOfRange("max-output-edge", $0, 1...Self.edgeRange.upperBound) },
            [padding.top, padding.right, padding.bottom, padding.left].first { !Self.edgeRange.contains($0) }
                .flatMap { .outOfRange("padding", $0, Self.edgeRange) },
        ].compactMap { $0 }
    }

    public func validated() throws(ImagePipelineError) -> RenderSpec {
        if let problem = problems.first { throw problem }
        return self
    }

    /// The box a source must be decoded into so that no output pixel needs upscaling: a crop or a
    /// forced size needs both sides at least the box, a fit only the constraining one.
    public func decodeBox(uprightWidth: Int, uprightHeight: Int) -> (width: Int, height: Int) {
        if rotation % 180 == 90 {
            var turned = self
            turned.rotation = 0
            let box = turned.decodeBox(uprightWidth: uprightHeight, uprightHeight: uprightWidth)
            return (box.height, box.width)
        }
        if let crop, trim == nil {
            // The part kept must cover the box: the whole decoded as many times larger.
            var whole = self
            whole.crop = nil
            let (width, height) = (crop.side(crop.width, of: uprightWidth, scale: 1), crop.side(crop.height, of: uprightHeight, scale: 1))
            let box = whole.decodeBox(uprightWidth: width, uprightHeight: height)
            func grown(_ side: Int, _ factor: Double) -> Int {
                side >= DecodedImage.unbounded ? side : min(DecodedImage.unbounded, Int((Double(side) * factor).rounded(.up)))
            }
            return (grown(box.width, Double(uprightWidth) / Double(width)), grown(box.height, Double(uprightHeight) / Double(height)))
        }
        if minWidth > 0 || minHeight > 0 {
            // At least the scale the minimum sizes need, on both sides, whichever side the box constrains.
            var unbounded = self
            (unbounded.minWidth, unbounded.minHeight) = (0, 0)
            let box = unbounded.decodeBox(uprightWidth: uprightWidth, uprightHeight: uprightHeight)
            let scale = max(Double(minWidth) / Double(max(1, uprightWidth)), Double(minHeight) / Double(max(1, uprightHeight)))
            return (max(box.width, Int((Double(uprightWidth) * scale).rounded(.up))), max(box.height, Int((Double(uprightHeight) * scale).rounded(.up))))
        }
        if trim != nil {
            // What remains after the border is cut must still cover the box: decode at twice it.
            var untrimmed = self
            untrimmed.trim = nil
            let box = untrimmed.decodeBox(uprightWidth: uprightWidth, uprightHeight: uprightHeight)
            let twice = { (side: Int) in side >= DecodedImage.unbounded / 2 ? side : side * 2 }
            return (twice(box.width), twice(box.height))
        }
        if let framing {
            return RenderSpec(width: framing, height: framing, resizing: .fillDown).decodeBox(uprightWidth: uprightWidth, uprightHeight: uprightHeight)
        }
        let free = DecodedImage.unbounded
        // A fit's free sides are bounded by the output's edge limit, so the decode itself shrinks.
        let bound = maxEdge ?? free
        guard width > 0 || height > 0 else {
            guard zoom.x < 1 || zoom.y < 1 else { return (bound, bound) }
            let scale = max(zoom.x, zoom.y)
            return (min(bound, Int((Double(uprightWidth) * scale).rounded(.up))), min(bound, Int((Double(uprightHeight) * scale).rounded(.up))))
        }
        switch effectiveResizing(uprightWidth: uprightWidth, uprightHeight: uprightHeight) {
        case .fit:
            return (width > 0 ? width : bound, height > 0 ? height : bound)
        case .fill, .fillDown, .force, .auto:
            guard width > 0, height > 0 else { return (width > 0 ? width : free, height > 0 ? height : free) }
            // The side that constrains the cover scale is bounded; the other is free.
            let sourceWider = uprightWidth * height > uprightHeight * width
            return sourceWider ? (free, height) : (width, free)
        }
    }

    /// At most how many pixels the output has, for admission by cost (`DecodeCost`): the photo fitted
    /// into the box (larger than the photo only when enlarging), or the whole box for a crop, a forced
    /// size or a canvas (`extend`), plus padding; never past `maxEdge` on a side.
    public func outputPixelBound(uprightWidth: Int, uprightHeight: Int) -> Int {
        let edge = Double(maxEdge ?? Self.edgeRange.upperBound)
        var (width, height) = (Double(uprightWidth), Double(uprightHeight))
        if rotation % 180 == 90 { (width, height) = (height, width) }
        if let crop {
            (width, height) = (Double(crop.side(crop.width, of: Int(width), scale: 1)), Double(crop.side(crop.height, of: Int(height), scale: 1)))
        }
        let box = (width: self.width > 0 ? Double(self.width) : edge, height: self.height > 0 ? Double(self.height) : edge)
        var scale = min(box.width / width, box.height / height, enlarge ? .infinity : 1)
        if self.width == 0, self.height == 0 { scale = min(scale, enlarge ? max(zoom.x, zoom.y) : 1) }
        scale = max(scale, Double(minWidth) / width, Double(minHeight) / height)
        var (outWidth, outHeight) = (width * scale, height * scale)
        if effectiveResizing(uprightWidth: uprightWidth, uprightHeight: uprightHeight) != .fit || extend || extendAspectRatio {
            (outWidth, outHeight) = (max(outWidth, min(box.width, edge)), max(outHeight, min(box.height, edge)))
        }
        outWidth = min(edge, outWidth.rounded(.up) + Double(padding.left + padding.right))
        outHeight = min(edge, outHeight.rounded(.up) + Double(padding.top + padding.bottom))
        return Int(outWidth * outHeight)
    }

    /// `auto` resolved against the photo's shape; a fill with a free side is a fit.
    func effectiveResizing(uprightWidth: Int, uprightHeight: Int) -> Resizing {
        switch resizing {
        case .auto:
            guard width > 0, height > 0 else { return .fit }
            return (uprightWidth >= uprightHeight) == (width >= height) ? .fill : .fit
        case .fill, .fillDown:
            return width > 0 && height > 0 ? resizing : .fit
        case .fit, .force:
            return resizing
        }
    }
}

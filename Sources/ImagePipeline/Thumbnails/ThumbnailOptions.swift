/// How square list/grid thumbnails are cut from a photo.
public enum ThumbnailCrop: String, Sendable, Codable, CaseIterable {
    /// Keeps the most salient region (the product, not the table it stands on).
    case attention
    case centre
    /// No crop: the whole photo fits inside the square box, keeping its aspect ratio.
    case none
    /// No crop, and the square filled: the whole photo centred on its own edge colour (`bg:auto`).
    case pad
}

/// A named thumbnail size in points, made at each of the configured screen scales.
public struct ThumbnailVariant: Sendable, Codable, Equatable {
    public var name: String
    public var points: Int

    public init(name: String, points: Int) {
        self.name = name
        self.points = points
    }
}

/// What thumbnails to make. The defaults match the OpenMarket apps: an 80 pt list row and a 200 pt grid
/// cell at @2x and @3x, i.e. 160, 240, 400 and 600 px squares.
public struct ThumbnailOptions: Sendable, Codable, Equatable {
    public var variants = [ThumbnailVariant(name: "list", points: 80), ThumbnailVariant(name: "grid", points: 200)]
    public var scales = [2, 3]
    public var crop = ThumbnailCrop.attention
    public var format = OutputFormat.jpeg
    public var quality = 82
    /// Sources with more pixels than this are refused from their header, as in `prepare`.
    public var maxPixels = PrepareOptions().maxPixels
    /// Progressive JPEG (see `ImageEncoder`).
    public var progressive = true

    public init() {}

    private enum CodingKeys: String, CodingKey { case variants, scales, crop, format, quality, maxPixels, progressive }

    /// A `thumbs.json` written before `progressive` existed describes baseline JPEGs.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        variants = try container.decode([ThumbnailVariant].self, forKey: .variants)
        scales = try container.decode([Int].self, forKey: .scales)
        crop = try container.decode(ThumbnailCrop.self, forKey: .crop)
        format = try container.decode(OutputFormat.self, forKey: .format)
        quality = try container.decode(Int.self, forKey: .quality)
        maxPixels = try container.decode(Int.self, forKey: .maxPixels)
        progressive = try container.decodeIfPresent(Bool.self, forKey: .progressive) ?? false
    }

    /// Every thumbnail to make, largest first.
    public var sizes: [(variant: String, scale: Int, pixels: Int)] {
        variants.flatMap { variant in scales.map { (variant.name, $0, variant.points * $0) } }
            .sorted { $0.pixels > $1.pixels }
    }

    public static let pointsRange = 1...4096
    public static let scalesRange = 1...4
    public static let variantLimit = 32

    /// Every setting out of range, as `invalidOption` errors named like the command-line flags.
    public var problems: [ImagePipelineError] {
        var problems: [ImagePipelineError] = []
        if variants.isEmpty || variants.count > Self.variantLimit {
            problems.append(.invalidOption(name: "variant", value: "\(variants.count) variants", allowed: "1–\(Self.variantLimit)"))
        }
        for variant in variants {
            if !Self.pointsRange.contains(variant.points) {
                problems.append(.invalidOption(name: "variant", value: "\(variant.name)=\(variant.points)", allowed: "points 1–4096"))
            }
            if variant.name.isEmpty || variant.name.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                problems.append(.invalidOption(name: "variant", value: "\"\(variant.name)\"", allowed: "a name of letters, digits, - and _"))
            }
        }
        if Set(variants.map(\.name)).count != variants.count {
            problems.append(.invalidOption(name: "variant", value: variants.map(\.name).joined(separator: ","), allowed: "unique names"))
        }
        if scales.isEmpty || scales.contains(where: { !Self.scalesRange.contains($0) }) {
            problems.append(.invalidOption(name: "scales", value: scales.map(String.init).joined(separator: ","), allowed: "1 to 4, e.g. 2,3"))
        }
        return problems + [.outOfRange("quality", quality, RenderSpec.qualityRange),
                           .outOfRange("max-pixels", maxPixels, PrepareOptions.pixelsRange)].compactMap { $0 }
    }

    public func validated() throws(ImagePipelineError) -> ThumbnailOptions {
        if let problem = problems.first { throw problem }
        return self
    }

    /// Changes whenever any thumbnail's bytes would.
    public var fingerprint: String {
        let variantText = variants.map { "\($0.name)=\($0.points)" }.joined(separator: ",")
        return Fingerprint.hex("thumbs-v1|\(variantText)|\(scales)|\(crop.rawValue)|\(format.rawValue)|\(quality)"
            + (progressive ? "|progressive" : ""))
    }

    /// How the largest thumbnail is cut: a square of `pixels` (smaller for a small photo, never
    /// enlarged and still square), or with no crop the whole photo inside that square.
    func spec(pixels: Int) -> RenderSpec {
        var spec = RenderSpec(width: pixels, height: pixels, resizing: [.none, .pad].contains(crop) ? .fit : .fillDown,
                              gravity: crop == .attention ? .attention : .centre, format: format, quality: quality)
        spec.encoder.progressive = progressive
        if crop == .pad { (spec.extend, spec.background) = (true, .edge) }
        return spec
    }

    /// A smaller thumbnail, fitted from the largest one's pixels (already cut, already square).
    func smallerSpec(pixels: Int) -> RenderSpec {
        var spec = RenderSpec(width: pixels, height: pixels, resizing: .fit, format: format, quality: quality)
        spec.encoder.progressive = progressive
        return spec
    }

    /// The box a source must be decoded into so the largest thumbnail needs no upscaling.
    func decodeBox(uprightWidth: Int, uprightHeight: Int) -> (width: Int, height: Int) {
        spec(pixels: sizes.first?.pixels ?? 1).decodeBox(uprightWidth: uprightWidth, uprightHeight: uprightHeight)
    }
}

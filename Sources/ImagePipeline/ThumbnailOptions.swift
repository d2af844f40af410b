import CVips

/// How square list/grid thumbnails are cut from a photo.
public enum ThumbnailCrop: String, Sendable, Codable, CaseIterable {
    /// Keeps the most salient region (the product, not the table it stands on).
    case attention
    case centre
    /// No crop: the whole photo fits inside the square box, keeping its aspect ratio.
    case none

    var interesting: VipsInteresting {
        switch self {
        case .attention: VIPS_INTERESTING_ATTENTION
        case .centre: VIPS_INTERESTING_CENTRE
        case .none: VIPS_INTERESTING_NONE
        }
    }
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

    public init() {}

    /// Every thumbnail to make, largest first.
    public var sizes: [(variant: String, scale: Int, pixels: Int)] {
        variants.flatMap { variant in scales.map { (variant.name, $0, variant.points * $0) } }
            .sorted { $0.pixels > $1.pixels }
    }

    public var problems: [String] {
        var problems: [String] = []
        if variants.isEmpty { problems.append("at least one --variant is needed") }
        for variant in variants {
            if variant.points < 1 || variant.points > 4096 { problems.append("variant \(variant.name): points must be 1–4096") }
            if variant.name.isEmpty || variant.name.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                problems.append("variant name \"\(variant.name)\": use letters, digits, - and _ only")
            }
        }
        if Set(variants.map(\.name)).count != variants.count { problems.append("variant names must be unique") }
        if scales.isEmpty || scales.contains(where: { !(1...4).contains($0) }) { problems.append("--scales takes 1 to 4, e.g. 1,2,3") }
        if !(1...100).contains(quality) { problems.append("--quality must be between 1 and 100") }
        if format == .png { problems.append("thumbnails are jpeg or webp") }
        return problems
    }

    /// Changes whenever any thumbnail's bytes would.
    public var fingerprint: String {
        let variantText = variants.map { "\($0.name)=\($0.points)" }.joined(separator: ",")
        return Fingerprint.hex("thumbs-v1|\(variantText)|\(scales)|\(crop.rawValue)|\(format.rawValue)|\(quality)")
    }

    /// The box a source must be decoded into so the largest thumbnail needs no upscaling: a square
    /// crop needs the shorter side at least that large, a fit-inside thumbnail only the longer.
    func decodeBox(uprightWidth: Int, uprightHeight: Int) -> (width: Int, height: Int) {
        let largest = sizes.first?.pixels ?? 1
        guard crop != .none else { return (largest, largest) }
        let unbounded = 10_000_000
        return uprightWidth <= uprightHeight ? (largest, unbounded) : (unbounded, largest)
    }
}

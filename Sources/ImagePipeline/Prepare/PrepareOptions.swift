import Foundation

/// Settings for turning a photo into an upload-ready image. The defaults match the OpenMarket
/// server: at most 300,000 bytes per image (which satisfies both readings of "300 KB").
public struct PrepareOptions: Sendable, Equatable, Codable {
    /// Longest edge of the output, in pixels. Smaller sources are never enlarged.
    public var maxEdge: Int = 2048
    /// Hard ceiling on the encoded size; no output is ever larger.
    public var maxBytes: Int = 300_000
    public var minQuality: Int = 75
    public var maxQuality: Int = 92
    /// `.png` is used only when the lossless image fits the budget; otherwise the output is JPEG.
    public var format: OutputFormat = .jpeg
    /// Sources with more pixels than this are refused from their header, before any decode.
    /// The default is libvips' own limit for untrusted PNG (16383 × 16383).
    public var maxPixels: Int = 268_402_689
    /// Shrinking to meet the budget stops here: a product photo smaller than this is useless. A
    /// `maxEdge` below it lowers it (see `shrinkFloor`), so `--max-edge 100` alone just works.
    public var minEdge: Int = 320
    /// Progressive JPEG: 2–4% smaller on the corpus, so a higher quality under the budget on some
    /// photos (BENCHMARKS.md); the OpenMarket servers store the bytes as sent.
    public var progressive = true
    /// Cut a uniform border (a white sweep) before fitting; off by default, since it changes what
    /// the seller uploads.
    public var trim = false
    /// A quality floor by looks (`--target-score`): the smallest quality in `minQuality...maxQuality`
    /// whose output scores at least this by SSIMULACRA2, within `maxBytes`; when the budget cannot
    /// reach it, the best that fits, and the photo is named with its score. Off by default: without
    /// it a photo gets the best quality that fits, which looks at least as good, in one search.
    public var targetScore: Double?
    /// The marketplace whose main-image rules the prepared photo is checked against (`--listing`, an
    /// id in `Marketplace.all`); nil checks none, and measures nothing more.
    public var listing: String?
    /// The product cut out onto pure white and framed (`--background white`, `--fill`, `--model`);
    /// nil keeps the photo's background.
    public var background: ProductBackground?

    public init() {}

    /// The marketplace `listing` names.
    public var marketplace: Marketplace? { listing.flatMap(Marketplace.named) }

    /// The ranges every entry point enforces. An edge beyond 65,535 is beyond JPEG itself.
    public static let edgeRange = 16...65_535
    public static let bytesRange = 1024...(1 << 30)
    public static let qualityRange = 1...100
    public static let pixelsRange = 1...10_000_000_000
    public static let scoreRange = 10.0...100.0

    /// Every setting out of range, as `invalidOption` errors named like the command-line flags.
    public var problems: [ImagePipelineError] {
        var problems = [
            ImagePipelineError.outOfRange("max-edge", maxEdge, Self.edgeRange),
            .outOfRange("max-bytes", maxBytes, Self.bytesRange),
            .outOfRange("min-quality", minQuality, Self.qualityRange),
            .outOfRange("max-quality", maxQuality, Self.qualityRange),
            .outOfRange("max-pixels", maxPixels, Self.pixelsRange),
            .outOfRange("min-edge", minEdge, 1...Self.edgeRange.upperBound),
        ].compactMap { $0 }
        if Self.qualityRange.contains(minQuality), Self.qualityRange.contains(maxQuality), minQuality > maxQuality {
            problems.append(.invalidOption(name: "min-quality", value: String(minQuality), allowed: "at most max-quality (\(maxQuality))"))
        }
        if let targetScore, !Self.scoreRange.contains(targetScore) {
            problems.append(.invalidOption(name: "target-score", value: String(targetScore), allowed: "10 to 100 (90 visually lossless, 80 very high, 70 high)"))
        }
        if let fill = background?.fill, !ProductBackground.fillRange.contains(fill) {
            problems.append(.invalidOption(name: "fill", value: String(fill), allowed: "0.5 to 1 (0.85: the product's longer side 85% of the square)"))
        }
        if let listing, Marketplace.named(listing) == nil {
            problems.append(.invalidOption(name: "listing", value: listing, allowed: Marketplace.names))
        }
        if ![.jpeg, .png].contains(format) {
            problems.append(.invalidOption(name: "format", value: format.rawValue, allowed: "jpeg or png (the server takes nothing else)"))
        }
        return problems
    }

    /// The edge below which the budget search fails rather than shrink further.
    public var shrinkFloor: Int { min(minEdge, maxEdge) }

    /// The upload image as the render pipeline makes it: trimmed if asked, fitted inside `maxEdge`,
    /// JPEG at the best quality in `minQuality...maxQuality` under `maxBytes`. The service's
    /// `pr:upload` preset is written from this, so the two give the same bytes.
    public var renderSpec: RenderSpec {
        var spec = RenderSpec(width: maxEdge, height: maxEdge, resizing: .fit, format: .jpeg, quality: maxQuality, maxBytes: maxBytes)
        (spec.minQuality, spec.minEdge, spec.encoder.progressive) = (minQuality, shrinkFloor, progressive)
        spec.trim = trim ? RenderSpec.Trim() : nil
        spec.targetScore = targetScore
        spec.productBackground = background
        return spec
    }

    /// These options, or the first problem with them.
    public func validated() throws(ImagePipelineError) -> PrepareOptions {
        if let problem = problems.first { throw problem }
        return self
    }

    /// Identifies every setting that changes the output bytes, plus the pipeline's own version, so an
    /// incremental run redoes an image exactly when its result would differ.
    public var fingerprint: String {
        var settings = "prepare-v2|\(maxEdge)|\(maxBytes)|\(minQuality)|\(maxQuality)|\(format.rawValue)|\(shrinkFloor)"
        if progressive { settings += "|progressive" }
        if trim { settings += "|trim" }
        if let targetScore { settings += "|score:\(targetScore)" }
        // Each only when set, so settings without them keep the fingerprint they always had.
        if let marketplace { settings += "|listing:\(marketplace.id)" }
        if let background { settings += "|background:white:\(background.fill)" }
        return Fingerprint.hex(settings)
    }

    /// What preparing a photo with this header does, in order, as sentences: what `inspect` shows
    /// before it runs the pipeline.
    public func steps(for header: ImageHeader) -> [String] {
        var steps: [String] = []
        if header.orientation != 1 { steps.append("rotate upright (EXIF orientation \(header.orientation))") }
        if header.isCMYKOrProfiled { steps.append("convert \(header.iccProfile ?? header.interpretation.uppercased()) to sRGB") }
        if trim { steps.append("cut a uniform border") }
        if header.hasAlpha, format == .jpeg { steps.append("flatten transparency onto white") }
        if let background { steps.append("cut the product out onto pure white, its longer side \(Int((background.fill * 100).rounded()))% of a square") }
        if max(header.uprightWidth, header.uprightHeight) > maxEdge {
            steps.append("resize \(header.uprightWidth)×\(header.uprightHeight) to fit \(maxEdge) px")
        }
        if !header.metadata.isEmpty { steps.append("strip \(header.metadata.names.joined(separator: ", "))") }
        steps.append("encode \(format.rawValue.uppercased()) ≤ \(maxBytes) bytes" + (targetScore.map { ", at the lowest quality that scores \(String(format: "%g", $0))" } ?? ""))
        return steps
    }
}

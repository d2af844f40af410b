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
    /// Shrinking to meet the budget stops here: a product photo smaller than this is useless.
    public var minEdge: Int = 320

    public init() {}

    /// Problems a user must fix before anything runs, one sentence each.
    public var problems: [String] {
        var problems: [String] = []
        if maxEdge < 16 { problems.append("--max-edge must be at least 16 pixels") }
        if maxBytes < 1024 { problems.append("--max-bytes must be at least 1024") }
        if !(1...100).contains(minQuality) || !(1...100).contains(maxQuality) {
            problems.append("--min-quality and --max-quality must be between 1 and 100")
        } else if minQuality > maxQuality {
            problems.append("--min-quality (\(minQuality)) must not exceed --max-quality (\(maxQuality))")
        }
        if format == .webp { problems.append("the server takes JPEG or PNG only; use --format jpeg or png") }
        if maxPixels < 1 { problems.append("--max-pixels must be positive") }
        if minEdge < 1 || minEdge > maxEdge { problems.append("--min-edge must be between 1 and --max-edge") }
        return problems
    }

    /// Identifies every setting that changes the output bytes, plus the pipeline's own version, so an
    /// incremental run redoes an image exactly when its result would differ.
    public var fingerprint: String {
        Fingerprint.hex("prepare-v1|\(maxEdge)|\(maxBytes)|\(minQuality)|\(maxQuality)|\(format.rawValue)|\(minEdge)")
    }
}

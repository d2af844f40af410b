/// How the encoders work, beyond format and quality: settings a caller chooses once for all its
/// outputs (an operator's flags), kept together so a new one reaches every encode through one value.
public struct EncoderSettings: Sendable, Hashable, Codable {
    /// JPEGs in progressive scans: smaller at equal quality on nearly every photo, and shown while
    /// they load (BENCHMARKS.md). Off: baseline.
    public var progressive = true
    /// libheif's AV1 effort for AVIF, 0 (fastest) to 9: effort 4 is about 14% smaller than 0 at equal
    /// SSIMULACRA2, at 25–30× the encode time (BENCHMARKS.md).
    public var avifEffort = 0

    /// libjxl's effort for JPEG XL, 3 (fastest libvips 8.14 allows) to 9; 4 is imgproxy's default.
    public var jxlEffort = 4

    public static let avifEffortRange = 0...9
    public static let jxlEffortRange = 3...9

    public init(progressive: Bool = true, avifEffort: Int = 0, jxlEffort: Int = 4) {
        self.progressive = progressive
        self.avifEffort = avifEffort
        self.jxlEffort = jxlEffort
    }
}

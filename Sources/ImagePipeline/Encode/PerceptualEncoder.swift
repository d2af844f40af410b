import Foundation

/// Encodes at the lowest quality whose output still looks right: the smallest quality in `qualities`
/// whose decoded output scores at least `target` by SSIMULACRA2 against the pixels it was made from.
/// Quality numbers are not looks (the quality a photo needs for one score varies by 20 points across
/// photos), so a fixed quality is too many bytes for most photos and too few for some.
///
/// The search starts where the last images of this format and size ended (`QualityMemory`; else at
/// the target's number), steps towards it by the slope the last two scores show, and bisects what
/// is left; scores rise with quality, so a handful of encodes find it. With
/// `maxBytes`, a passing quality over the budget gives way to the best quality that fits
/// (`BudgetEncoder`, which may shrink the pixels): the budget is never exceeded, the score then falls
/// short and says so.
struct PerceptualEncoder {
    var format: OutputFormat
    var target: Double
    var qualities: ClosedRange<Int>
    var maxBytes: Int?
    var minEdge: Int
    var settings = EncoderSettings()

    /// SSIMULACRA2 points a quality step gains, until two scores measure it: JPEG's in the 60s to 80s.
    static let pointsPerQuality = 0.7
    /// The farthest one secant step goes.
    static let longestStep = 20

    /// Whether an output of `image` in `format` has a quality to choose and a score to choose it by:
    /// not PNG, not an animation, at least 8 pixels on a side.
    static func canScore(_ image: DecodedImage, as format: OutputFormat) -> Bool {
        format != .png && image.frameCount == 1 && image.width >= 8 && image.height >= 8
    }

    func encode(_ image: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        var tried: [Int: (data: Data, score: Double)] = [:]
        let reference = try Ssimulacra2.Reference(image)
        /// Encoded bytes as a viewer decodes them, against the pixels they came from.
        func judge(_ data: Data) throws(ImagePipelineError) -> Double {
            try reference.score(try DecodedImage.readingBack(data))
        }
        func score(_ quality: Int) throws(ImagePipelineError) -> Double {
            if let known = tried[quality] { return known.score }
            let data = try ImageEncoder.encode(image, as: format, quality: quality, settings: settings)
            let score = try judge(data)
            tried[quality] = (data, score)
            return score
        }
        let key = QualityMemory.key(format, longEdge: image.longEdge)
        // `passing` is the lowest quality known to reach the target, `failing` the highest known not to.
        var passing: Int?, failing: Int?
        var quality = min(max(QualityMemory.shared.quality(for: key) ?? Int(target.rounded()), qualities.lowerBound), qualities.upperBound)
        var slope = Self.pointsPerQuality
        var previous: (quality: Int, score: Double)?
        // Secant steps until the answer is bracketed: each aims at the target from the last two scores.
        while passing == nil || failing == nil {
            let reached = try score(quality)
            if reached >= target { passing = min(passing ?? quality, quality) } else { failing = max(failing ?? quality, quality) }
            if let previous, previous.quality != quality, reached != previous.score {
                // Scores are noisy step to step: a slope near zero would fling the next probe far off.
                slope = min(max((reached - previous.score) / Double(quality - previous.quality), 0.3), 3)
            }
            previous = (quality, reached)
            if passing == qualities.lowerBound || failing == qualities.upperBound { break }
            let step = min(max(Int(((target - reached) / slope).rounded()), -Self.longestStep), Self.longestStep)
            let next = reached >= target ? quality + min(-1, step) : quality + max(1, step)
            quality = min(max(next, (failing ?? qualities.lowerBound - 1) + 1), (passing ?? qualities.upperBound + 1) - 1)
            if let failing, let passing, passing - failing <= 1 { break }
        }
        // Even the highest quality falls short: it is the closest there is.
        var (low, high) = ((failing ?? qualities.lowerBound - 1) + 1, passing ?? qualities.upperBound)
        while low < high {
            let middle = (low + high) / 2
            if try score(middle) >= target { high = middle } else { low = middle + 1 }
        }
        let reached = try score(high), data = tried[high]?.data ?? Data()
        QualityMemory.shared.remember(high, for: key)
        if let maxBytes, data.count > maxBytes {
            // The budget cannot reach the score: the best that fits, scored too while it kept the size.
            var fitted = try BudgetEncoder(format: format, maxBytes: maxBytes, qualities: qualities.lowerBound...high, minEdge: minEdge, settings: settings)
                .encode(image)
            fitted.encodes += tried.count
            if fitted.width == image.width, fitted.height == image.height {
                fitted.score = try judge(fitted.data)
            }
            return fitted
        }
        var chosen = EncodedImage(data: data, format: format, width: image.width, height: image.height, quality: high, encodes: tried.count)
        chosen.score = reached
        return chosen
    }
}

/// The quality the last image of a format and size class needed for its score, where the next
/// search starts: neighbouring photos of one shop need similar qualities. Process-wide; a guess only.
final class QualityMemory: @unchecked Sendable {
    static let shared = QualityMemory()
    private let qualities = Locked<[String: Int]>([:])

    /// Size classes by powers of two of the long edge: 240 and 256 are one class, 600 another.
    static func key(_ format: OutputFormat, longEdge: Int) -> String {
        "\(format.rawValue)-\(Int(log2(Double(max(1, longEdge))).rounded()))"
    }

    func quality(for key: String) -> Int? { qualities.withLock { $0[key] } }
    func remember(_ quality: Int, for key: String) { qualities.withLock { $0[key] = quality } }
}

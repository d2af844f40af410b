import Foundation

/// Encodes at the lowest quality whose output still looks right: the smallest quality in `qualities`
/// whose decoded output scores at least `target` by SSIMULACRA2 against the pixels it was made from.
/// Quality numbers are not looks (the quality a photo needs for one score varies by 20 points across
/// photos), so a fixed quality is too many bytes for most photos and too few for some.
///
/// The search starts where the last images of this format and size ended (`QualityMemory`; else at
/// the target's number), steps towards it by the slope the last two scores show, and bisects what
/// is left; scores rise with quality, so a handful of encodes find it. A small JPEG is also tried in
/// 4:4:4, which can be fewer bytes. With `maxBytes`, a passing quality over the budget gives way to
/// the best quality that fits (`BudgetEncoder`, which may shrink the pixels): the budget is never
/// exceeded, the score then falls short and says so.
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
    /// Outputs up to this long edge (list cells) may be 4:4:4 by choice, probed this far below the
    /// 4:2:0 answer: where 4:4:4 won, it needed 11 to 18 less (`Benchmarks/subsampling.py`).
    static let fullChromaEdge = 320
    static let fullChromaStep = 14

    /// Whether an output of `image` in `format` has a quality to choose and a score to choose it by:
    /// not PNG or GIF, not an animation, at least 8 pixels on a side.
    static func canScore(_ image: DecodedImage, as format: OutputFormat) -> Bool {
        format.hasQuality && image.frameCount == 1 && image.width >= 8 && image.height >= 8
    }

    func encode(_ image: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        var tried: [Attempt: (data: Data, score: Double?)] = [:]
        let reference = try Ssimulacra2.Reference(image)
        /// Encoded bytes as a viewer decodes them, against the pixels they came from.
        func judge(_ data: Data) throws(ImagePipelineError) -> Double {
            try reference.score(try DecodedImage.readingBack(data))
        }
        func bytes(_ attempt: Attempt) throws(ImagePipelineError) -> Data {
            if let known = tried[attempt] { return known.data }
            let data = try ImageEncoder.encode(image, as: format, quality: attempt.quality, settings: settings, fullChroma: attempt.fullChroma)
            tried[attempt] = (data, nil)
            return data
        }
        func score(_ attempt: Attempt) throws(ImagePipelineError) -> Double {
            if let known = tried[attempt]?.score { return known }
            let score = try judge(try bytes(attempt))
            tried[attempt]?.score = score
            return score
        }
        let key = QualityMemory.key(format, longEdge: image.longEdge)
        let start = QualityMemory.shared.quality(for: key) ?? Int(target.rounded())
        var chosen = Attempt(quality: try lowestPassing(in: qualities, from: start) { q throws(ImagePipelineError) in try score(Attempt(quality: q)) })
        QualityMemory.shared.remember(chosen.quality, for: key)
        // 4:4:4 where it is fewer bytes for the same looks: in a list cell, sharp colour edges (red
        // lettering on white) keep at a much lower quality; photos rarely gain, and at 400 px and
        // up nothing measured did (BENCHMARKS.md). One 4:4:4 encode well below the 4:2:0 answer
        // decides: smaller and still passing, the lowest passing one is sought below it. Where 4:2:0
        // falls short even at its best, 4:4:4 is searched whole at any size: it may reach the target.
        if format == .jpeg {
            let full = { (q: Int) throws(ImagePipelineError) -> Double in try score(Attempt(quality: q, fullChroma: true)) }
            if try score(chosen) < target {
                let best = Attempt(quality: try lowestPassing(in: qualities, from: chosen.quality, full), fullChroma: true)
                if try score(best) > score(chosen) { chosen = best }
            } else if image.longEdge <= Self.fullChromaEdge {
                let probe = max(qualities.lowerBound, chosen.quality - Self.fullChromaStep)
                if try bytes(Attempt(quality: probe, fullChroma: true)).count < bytes(chosen).count, try full(probe) >= target {
                    chosen = Attempt(quality: try lowestPassing(in: qualities.lowerBound...probe, from: probe, full), fullChroma: true)
                }
            }
        }
        let data = try bytes(chosen), reached = try score(chosen)
        if let maxBytes, data.count > maxBytes {
            // The budget cannot reach the score: the best that fits, scored too while it kept the size.
            var fitted = try BudgetEncoder(format: format, maxBytes: maxBytes, qualities: qualities.lowerBound...chosen.quality, minEdge: minEdge,
                                           settings: settings).encode(image)
            fitted.encodes += tried.count
            if fitted.width == image.width, fitted.height == image.height {
                fitted.score = try judge(fitted.data)
            }
            return fitted
        }
        var encoded = EncodedImage(data: data, format: format, width: image.width, height: image.height, quality: chosen.quality, encodes: tried.count)
        (encoded.score, encoded.fullChroma) = (reached, chosen.fullChroma)
        return encoded
    }

    /// One encode: a quality, and for JPEG whether in 4:4:4.
    private struct Attempt: Hashable {
        var quality: Int
        var fullChroma = false
    }

    /// The lowest quality in `range` whose `score` reaches the target (the highest when none does),
    /// from `start`: secant steps until the answer is bracketed, then bisection. Scores rise with
    /// quality, so a handful of scores find it.
    private func lowestPassing(in range: ClosedRange<Int>, from start: Int,
                               _ score: (Int) throws(ImagePipelineError) -> Double) throws(ImagePipelineError) -> Int {
        // `passing` is the lowest quality known to reach the target, `failing` the highest known not to.
        var passing: Int?, failing: Int?
        var quality = min(max(start, range.lowerBound), range.upperBound)
        var slope = Self.pointsPerQuality
        var previous: (quality: Int, score: Double)?
        while passing == nil || failing == nil {
            let reached = try score(quality)
            if reached >= target { passing = min(passing ?? quality, quality) } else { failing = max(failing ?? quality, quality) }
            if let previous, previous.quality != quality, reached != previous.score {
                // Scores are noisy step to step: a slope near zero would fling the next probe far off.
                slope = min(max((reached - previous.score) / Double(quality - previous.quality), 0.3), 3)
            }
            // A pass by less than half of what a quality step gains (by the slope measured) leaves
            // the step below short of the target: this is the lowest.
            if previous != nil, reached >= target, reached - target < slope / 2 { return quality }
            previous = (quality, reached)
            if passing == range.lowerBound || failing == range.upperBound { break }
            let step = min(max(Int(((target - reached) / slope).rounded()), -Self.longestStep), Self.longestStep)
            let next = reached >= target ? quality + min(-1, step) : quality + max(1, step)
            quality = min(max(next, (failing ?? range.lowerBound - 1) + 1), (passing ?? range.upperBound + 1) - 1)
            if let failing, let passing, passing - failing <= 1 { break }
        }
        // Even the highest quality falls short: it is the closest there is.
        var (low, high) = ((failing ?? range.lowerBound - 1) + 1, passing ?? range.upperBound)
        while low < high {
            let middle = (low + high) / 2
            if try score(middle) >= target { high = middle } else { low = middle + 1 }
        }
        return high
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

import Foundation

/// Finds the highest JPEG quality whose encoded size fits a byte budget, in about three encodes.
///
/// libjpeg scales its quantisation tables by `s(q) = 5000/q` below 50 and `200 − 2q` above, and
/// log(bytes) is close to linear in log(s). Each step fits that line through the measurements nearest
/// the budget (with a prior slope while there is only one) and jumps to the quality it predicts, kept
/// strictly inside the interval still in doubt, so the search can never loop. It ends when a quality
/// fits and the next one up was measured not to, or nothing is left to try.
struct QualitySearch {
    let range: ClosedRange<Int>
    let budget: Int
    /// Slope of log(bytes) against log(s), measured on the photo corpus (−0.54 to −0.69 for photos);
    /// used until two points exist.
    var priorSlope: Double = -0.55
    /// A size expected, not measured, at some quality (after a resize): guides the first probe.
    /// Without one the first probe is the top of the range, which small images fit at once.
    var estimate: (quality: Int, size: Int)?
    /// When the model puts the lowest quality this far over budget, the search gives up without
    /// measuring it: the slope varies by ±0.1 across photos, about ±12% in predicted size.
    var hopelessRatio = 1.25

    struct Outcome {
        /// The highest quality measured to fit, or nil when even the lowest quality is over budget.
        var quality: Int?
        /// Every size measured, by quality; its count is the number of encodes spent.
        var sizes: [Int: Int]
        /// The slope measured on this image, to seed a later search on a resized copy.
        var slope: Double?
        /// The size at the lowest quality: measured, or predicted when the search gave up early.
        var lowestQualitySize: Int?
    }

    func run(measure: (Int) throws(ImagePipelineError) -> Int) throws(ImagePipelineError) -> Outcome {
        var sizes: [Int: Int] = [:]
        var fits: Int?      // highest quality measured to fit
        var tooBig: Int?    // lowest quality measured not to fit
        while true {
            if let fits, fits == range.upperBound || fits + 1 == tooBig { break }
            if tooBig == range.lowerBound { break }
            if fits == nil, let predicted = predictedSize(at: range.lowerBound, from: sizes),
               Double(predicted) > Double(budget) * hopelessRatio {
                return Outcome(quality: nil, sizes: sizes, slope: nil, lowestQualitySize: predicted)
            }
            let low = (fits ?? range.lowerBound - 1) + 1
            let high = (tooBig ?? range.upperBound + 1) - 1
            let guide = sizes.isEmpty ? estimate.map { [$0] } : nearest(sizes)
            let quality = guide.map { min(max(predict(from: $0), low), high) } ?? high
            let size = try measure(quality)
            sizes[quality] = size
            if size <= budget {
                fits = max(fits ?? quality, quality)
            } else {
                tooBig = min(tooBig ?? quality, quality)
            }
        }
        return Outcome(quality: fits, sizes: sizes, slope: Self.slope(through: nearest(sizes)),
                       lowestQualitySize: sizes[range.lowerBound])
    }

    /// The model's size at `quality`, from a single measurement above it; nil once two points exist,
    /// because then the search measures instead of extrapolating.
    private func predictedSize(at quality: Int, from sizes: [Int: Int]) -> Int? {
        guard sizes.count == 1, let (measured, size) = sizes.first, measured > quality else { return nil }
        return Int(Double(size) * exp(priorSlope * (Self.logScale(quality) - Self.logScale(measured))))
    }

    /// The largest quality the model expects to fit.
    private func predict(from points: [(quality: Int, size: Int)]) -> Int {
        let slope = Self.slope(through: points) ?? priorSlope
        let anchor = points[0]
        let target = log(Double(budget))
        let scale = exp(Self.logScale(anchor.quality) + (target - log(Double(anchor.size))) / slope)
        let quality = Self.quality(forScale: scale)
        // Degenerate measurements (a zero-byte answer, a flat curve) must not crash the conversion.
        guard quality.isFinite else { return anchor.quality }
        return Int(min(max(quality, 0), 101).rounded(.down))
    }

    /// The measurements closest to the budget in log size: these bracket the answer best.
    private func nearest(_ sizes: [Int: Int]) -> [(quality: Int, size: Int)] {
        let target = log(Double(budget))
        return sizes.map { (quality: $0.key, size: $0.value) }
            .sorted { abs(log(Double($0.size)) - target) < abs(log(Double($1.size)) - target) }
            .prefix(2).map { $0 }
    }

    private static func slope(through points: [(quality: Int, size: Int)]) -> Double? {
        guard points.count == 2 else { return nil }
        let dx = logScale(points[1].quality) - logScale(points[0].quality)
        let dy = log(Double(points[1].size)) - log(Double(points[0].size))
        // A flat or inverted segment (tiny images where headers dominate) says nothing useful.
        guard abs(dx) > 1e-9, dy / dx < -0.05 else { return nil }
        return dy / dx
    }

    static func logScale(_ quality: Int) -> Double {
        let q = Double(min(max(quality, 1), 100))
        return log(max(q < 50 ? 5000 / q : 200 - 2 * q, 1))
    }

    static func quality(forScale scale: Double) -> Double {
        scale > 100 ? 5000 / scale : (200 - max(scale, 0)) / 2
    }
}

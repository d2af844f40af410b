import Foundation

/// Encodes a decoded image under a byte budget at the best quality that fits.
///
/// The decoded pixels stay in memory, so every attempt is one encode — never a decode, and never a
/// re-encode of a compressed JPEG (the generation-loss loop real clients wrote). When even the lowest
/// quality is over budget the pixels shrink by about √(budget/size), from the decoded image, and the
/// search runs again; below the minimum edge the image fails instead of shipping a useless one.
/// PNG and GIF have no quality to lower, so they only shrink.
struct BudgetEncoder {
    var format: OutputFormat
    var maxBytes: Int
    var qualities: ClosedRange<Int>
    var minEdge: Int
    var settings = EncoderSettings()

    static let bytesPerPixelExponent = 0.8

    func encode(_ decoded: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        var image = decoded
        var encodes = 0
        var search = QualitySearch(range: format.hasQuality ? qualities : 100...100, budget: maxBytes)
        while true {
            var best: (quality: Int, data: Data)?
            let outcome = try search.run { quality throws(ImagePipelineError) in
                let data = try ImageEncoder.encode(image, as: format, quality: quality, settings: settings)
                if data.count <= maxBytes, quality > best?.quality ?? Int.min { best = (quality, data) }
                return data.count
            }
            encodes += outcome.sizes.count
            if let best {
                return EncodedImage(data: best.data, format: format, width: image.width, height: image.height,
                                    quality: format.hasQuality ? best.quality : nil, encodes: encodes)
            }
            let smallest = outcome.lowestQualitySize ?? Int.max
            guard image.longEdge > minEdge, smallest != Int.max else {
                throw .cannotFitBudget(maxBytes: maxBytes, smallestBytes: smallest, width: image.width,
                                       height: image.height, minQuality: qualities.lowerBound)
            }
            // Shrink by √(budget/size), aiming the lowest quality at 90% of the budget so one shrink
            // nearly always suffices. Bytes shrink more slowly than pixels (detail gets denser, about
            // pixels^0.8 on the photo corpus), which only guides the first probe of the next search.
            let edgeFactor = (0.9 * Double(maxBytes) / Double(smallest)).squareRoot()
            let edge = max(minEdge, min(image.longEdge - 1, Int(Double(image.longEdge) * edgeFactor)))
            let pixelRatio = pow(Double(edge) / Double(image.longEdge), 2)
            image = try decoded.fitting(edge: edge)
            search.estimate = (search.range.lowerBound, Int(Double(smallest) * pow(pixelRatio, Self.bytesPerPixelExponent)))
            search.priorSlope = outcome.slope ?? search.priorSlope
        }
    }
}

import CVips
import Foundation

/// Encodes a decoded image under a byte budget at the best quality that fits.
///
/// The decoded pixels stay in memory, so every attempt is one encode — never a decode, and never a
/// re-encode of a compressed JPEG (the generation-loss loop real clients wrote). When even the lowest
/// quality is over budget the pixels shrink by about √(budget/size), from the decoded image, and the
/// search runs again; below the minimum edge the image fails instead of shipping a useless thumbnail.
struct BudgetEncoder {
    let options: PrepareOptions
    static let bytesPerPixelExponent = 0.8
    /// Beyond this aspect ratio a picture is a sliver, not a product photo (panoramas are about 4:1).
    static let slenderRatio = 10

    /// Odd shapes still encode (the server accepts them) but are almost certainly the wrong file.
    static func shapeWarnings(width: Int, height: Int, minEdge: Int) -> [String] {
        let long = max(width, height), short = min(width, height)
        if long < minEdge {
            return ["only \(width)×\(height) pixels, too small to show a product; use the original photo"]
        }
        if long > short * slenderRatio {
            return ["\(width)×\(height) is a sliver, not a photo (over \(slenderRatio):1); check this is the right file"]
        }
        return []
    }

    func encode(_ decoded: DecodedImage, stem: String) throws(ImagePipelineError) -> EncodedImage {
        var warnings = Self.shapeWarnings(width: decoded.width, height: decoded.height, minEdge: options.minEdge)
        var encodes = 0
        if options.format == .png {
            let png = try decoded.pixels(for: .png).pngData()
            if png.count <= options.maxBytes {
                return EncodedImage(data: png, format: .png, width: decoded.width, height: decoded.height,
                                    quality: nil, encodes: 1, warnings: warnings, suggestedFilename: stem + ".png")
            }
            warnings.append("PNG would be \(png.count) bytes, over \(options.maxBytes); wrote JPEG instead")
            encodes = 1
        }
        var image = decoded
        var search = QualitySearch(range: options.minQuality...options.maxQuality, budget: options.maxBytes)
        while true {
            let pixels = try image.pixels(for: .jpeg)
            var best: (quality: Int, data: Data)?
            let outcome = try search.run { quality throws(ImagePipelineError) in
                let data = try pixels.jpegData(quality: quality)
                if data.count <= options.maxBytes, quality > best?.quality ?? Int.min { best = (quality, data) }
                return data.count
            }
            encodes += outcome.sizes.count
            if let best {
                return EncodedImage(data: best.data, format: .jpeg, width: image.width, height: image.height,
                                    quality: best.quality, encodes: encodes, warnings: warnings,
                                    suggestedFilename: stem + ".jpg")
            }
            let smallest = outcome.lowestQualitySize ?? Int.max
            guard image.longEdge > options.minEdge, smallest != Int.max else {
                throw .cannotFitBudget(maxBytes: options.maxBytes, smallestBytes: smallest, width: image.width,
                                       height: image.height, minQuality: options.minQuality)
            }
            // Shrink by √(budget/size), aiming the lowest quality at 90% of the budget so one shrink
            // nearly always suffices. Bytes shrink more slowly than pixels (detail gets denser, about
            // pixels^0.8 on the photo corpus), which only guides the first probe of the next search.
            let edgeFactor = (0.9 * Double(options.maxBytes) / Double(smallest)).squareRoot()
            let edge = max(options.minEdge, min(image.longEdge - 1, Int(Double(image.longEdge) * edgeFactor)))
            let pixelRatio = pow(Double(edge) / Double(image.longEdge), 2)
            image = try decoded.fitting(edge: edge)
            search.estimate = (options.minQuality, Int(Double(smallest) * pow(pixelRatio, Self.bytesPerPixelExponent)))
            search.priorSlope = outcome.slope ?? search.priorSlope
        }
    }
}

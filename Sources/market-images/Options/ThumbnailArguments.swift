import ArgumentParser
import ImagePipeline

extension ThumbnailCrop: ExpressibleByArgument {}

/// Which thumbnails to make, shared by `thumbs` and `prepare --thumbs`.
struct ThumbnailArguments: ParsableArguments {
    @Option(name: .customLong("variant"), parsing: .singleValue,
            help: "A square variant NAME=POINTS; repeat to add more. Replaces a default of the same name (list=80, grid=200).")
    var variants: [String] = []

    @Option(help: "Screen scales, comma-separated; each variant is made at POINTS × scale pixels.")
    var scales = "2,3"

    @Option(help: "attention (keep the product), centre, none (fit inside the square, no crop), or pad (fit, then fill the square with the photo's edge colour).")
    var crop = ThumbnailCrop.attention

    func options(format: OutputFormat, quality: Int, maxPixels: Int, progressive: Bool) throws -> ThumbnailOptions {
        var options = ThumbnailOptions()
        options.progressive = progressive
        for text in variants {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let points = Int(parts[1]) else {
                throw ValidationError("--variant takes NAME=POINTS, e.g. detail=375; got \"\(text)\"")
            }
            options.variants.removeAll { $0.name == parts[0] }
            options.variants.append(ThumbnailVariant(name: parts[0], points: points))
        }
        let scaleValues = scales.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !scaleValues.isEmpty, scaleValues.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--scales takes whole numbers separated by commas, e.g. 2,3")
        }
        options.scales = Array(Set(scaleValues.compactMap { $0 })).sorted()
        options.crop = crop
        options.format = format
        options.quality = quality
        options.maxPixels = maxPixels
        if let problem = options.problems.first { throw ValidationError(problem.message) }
        return options
    }
}

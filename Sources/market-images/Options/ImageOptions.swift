import ArgumentParser
import ImagePipeline

extension OutputFormat: ExpressibleByArgument {}

/// What the server takes, so `--help` offers nothing it would refuse.
enum UploadFormat: String, ExpressibleByArgument, CaseIterable {
    case jpeg, png

    var outputFormat: OutputFormat { self == .png ? .png : .jpeg }
}

/// The encoding settings shared by every command that prepares images.
struct ImageOptions: ParsableArguments {
    @Option(help: "Longest edge of the output in pixels; smaller photos are never enlarged.")
    var maxEdge = PrepareOptions().maxEdge

    @Option(help: "Largest allowed output size in bytes (the server's limit).")
    var maxBytes = PrepareOptions().maxBytes

    @Option(help: "Lowest JPEG quality before the photo is shrunk instead.")
    var minQuality = PrepareOptions().minQuality

    @Option(help: "Highest JPEG quality tried.")
    var maxQuality = PrepareOptions().maxQuality

    @Option(help: "jpeg, or png when the lossless image fits the budget (else JPEG).")
    var format = UploadFormat.jpeg

    @Option(help: "Refuse sources with more pixels than this, read from the header before decoding.")
    var maxPixels = PrepareOptions().maxPixels

    @Option(help: "Smallest longest-edge a photo may be shrunk to when meeting the byte budget.")
    var minEdge = PrepareOptions().minEdge

    @Flag(help: "Baseline JPEG instead of progressive (progressive is a few percent smaller and shows while it loads).")
    var baselineJPEG = false

    @Flag(help: "Cut a uniform border (a white sweep) off each photo before fitting it; changes what is uploaded.")
    var trim = false

    @Option(help: ArgumentHelp("Encode at the lowest quality whose output scores at least N by SSIMULACRA2 (90 visually lossless, 80 very high, 70 high), within --max-bytes (default: off: the best quality that fits).", valueName: "n"))
    var targetScore: Double?

    @Option(help: ArgumentHelp("Check each photo against a marketplace's main-image rules (\(Marketplace.names)): its long side, white background, the product's share of the frame, centring, borders; each broken rule is a warning naming the measure.", valueName: "marketplace"))
    var listing: ListingName?

    @Option(help: ArgumentHelp("Cut the product out with the segmentation model and put it on pure white (RGB 255), framed in a square by --fill; needs the model (scripts/setup --background, or --model) and OpenCV's DNN.", valueName: "white"))
    var background: BackgroundColour?

    @Option(help: ArgumentHelp("With --background: the product's longer side as a share of the square (0.5–1; default the --listing's, else 0.85).", valueName: "share"))
    var fill: Double?

    @Option(help: ArgumentHelp("With --background: the U²-Net-p model file (u2netp.onnx) instead of the one scripts/setup installed.", valueName: "path"))
    var model: String?

    var prepareOptions: PrepareOptions {
        var options = PrepareOptions()
        options.progressive = !baselineJPEG
        options.trim = trim
        options.targetScore = targetScore
        options.listing = listing?.marketplace.id
        if background != nil {
            options.background = ProductBackground(fill: fill ?? listing?.marketplace.fill ?? ProductBackground().fill, model: model)
        }
        options.maxEdge = maxEdge
        options.maxBytes = maxBytes
        options.minQuality = minQuality
        options.maxQuality = maxQuality
        options.format = format.outputFormat
        options.maxPixels = maxPixels
        options.minEdge = minEdge
        return options
    }

    func validate() throws {
        if background == nil, fill != nil || model != nil { throw ValidationError("--fill and --model go with --background white") }
        if let problem = prepareOptions.problems.first { throw ValidationError(problem.message) }
        // Said once, before any photo, rather than as every photo's failure.
        if let background = prepareOptions.background {
            do throws(ImagePipelineError) { _ = try BackgroundModel.path(background.model) } catch { throw ValidationError(error.message) }
        }
    }
}

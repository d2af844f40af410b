import ArgumentParser
import ImagePipeline

struct Thumbs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make square list and grid thumbnails, regenerating only what changed.",
        discussion: """
        Each photo is decoded once, at the size its largest thumbnail needs, and every variant is cut \
        from that in memory: upright, sRGB, white behind transparency, no metadata. Small photos give \
        smaller thumbnails, never blurry enlarged ones. Files are named \
        OUT/<product>/<stem>.<variant>@<scale>x.<ext>, and OUT/thumbs.json lists them per source with \
        width, height and bytes, for an app to load.

        A rerun redoes only photos that are new or changed, or whose thumbnail settings changed. \
        --prune removes thumbnails whose source photo is gone and variants no longer configured; \
        --dry-run lists what would be made and pruned without writing anything.

        EXAMPLES:
          market-images thumbs photos/ --out thumbs
          market-images thumbs photos/ --out thumbs --variant detail=375 \\
              --scales 1,2,3 --format webp
          market-images thumbs photos/ --out thumbs --prune --dry-run
        """
    )

    @OptionGroup var folder: FolderRunOptions
    @OptionGroup var thumbnails: ThumbnailArguments

    @Option(help: "jpeg, webp, png, avif, jxl or gif.")
    var format = OutputFormat.jpeg

    @Option(help: "Encoder quality, 1–100.")
    var quality = ThumbnailOptions().quality

    @Option(help: "Refuse sources with more pixels than this, read from the header before decoding.")
    var maxPixels = PrepareOptions().maxPixels

    @Flag(help: "Baseline JPEG instead of progressive (progressive is a few percent smaller and shows while it loads).")
    var baselineJPEG = false

    @Flag(help: "List what would be made and pruned; change nothing.")
    var dryRun = false

    func validate() throws {
        _ = try thumbnails.options(format: format, quality: quality, maxPixels: maxPixels, progressive: !baselineJPEG)
    }

    func run() throws {
        var job = folder.job(prepare: nil, thumbnails: try thumbnails.options(format: format, quality: quality, maxPixels: maxPixels,
                                                                               progressive: !baselineJPEG))
        job.dryRun = dryRun
        try folder.execute(job)
    }
}

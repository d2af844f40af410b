import ArgumentParser
import Foundation
import ImagePipeline

struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make upload-ready images from photo folders.",
        discussion: """
        A folder whose photos sit directly in it is one product; a folder of subfolders is one product \
        per subfolder (photos/sku-123/*.HEIC → OUT/sku-123/*.jpg); photos named one by one go straight \
        into OUT. Each photo is made upright, converted to sRGB, stripped of all metadata (EXIF, GPS, \
        XMP, IPTC), fitted inside --max-edge and encoded at the highest quality that fits --max-bytes.

        OUT/manifest.json records every output. A rerun redoes only photos that changed or whose \
        settings changed; --force redoes everything. Sources are never modified, outputs are written \
        atomically, and a run that was killed completes on the next run.

        EXAMPLES:
          market-images prepare ~/Pictures/listing --out ready
          market-images prepare products/ --out ready --max-bytes 250000 --json
          market-images prepare IMG_0001.HEIC cutout.png --out ready --format png
          market-images prepare products/ --out ready --thumbs
        """
    )

    @OptionGroup var folder: FolderRunOptions
    @OptionGroup var image: ImageOptions

    @Flag(help: "Also make list/grid thumbnails from the same decode (see `thumbs`).")
    var thumbs = false
    @OptionGroup var thumbnails: ThumbnailArguments

    @Option(help: "Thumbnail format with --thumbs: jpeg, webp, png, avif, jxl or gif.")
    var thumbFormat = OutputFormat.jpeg

    @Option(help: "Thumbnail quality with --thumbs, 1–100.")
    var thumbQuality = ThumbnailOptions().quality

    func validate() throws {
        if thumbs { _ = try thumbnails.options(format: thumbFormat, quality: thumbQuality, maxPixels: image.maxPixels, progressive: !image.baselineJPEG) }
    }

    func run() throws {
        let thumbnailOptions = thumbs
            ? try thumbnails.options(format: thumbFormat, quality: thumbQuality, maxPixels: image.maxPixels, progressive: !image.baselineJPEG) : nil
        var job = folder.job(prepare: image.prepareOptions, thumbnails: thumbnailOptions)
        if thumbs { job.thumbnailSubfolder = FolderJob.thumbnailsBesideUploads }
        try folder.execute(job)
    }
}

import Foundation

extension EncodedImage {
    /// The source's own bytes as the output (imgproxy's `raw` and `skip_processing`), when they are
    /// already what a render would be safe to send: a format this pipeline writes, `format` if given,
    /// stored upright, and with no EXIF, XMP or IPTC (a phone photo's GPS never leaves through a
    /// shortcut; an embedded colour profile may stay, since viewers honour it). nil otherwise. The
    /// header is read as for any render, so the loader allow-list and `maxPixels` still hold.
    public static func unprocessed(_ source: ImageSource, as format: OutputFormat? = nil, maxPixels: Int) throws(ImagePipelineError) -> EncodedImage? {
        let data = try source.bytes()
        let header = try ImageHeader.read(data, fileName: source.fileName)
        guard header.pixelCount <= maxPixels else { throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels) }
        let formats: [String: OutputFormat] = ["JPEG": .jpeg, "PNG": .png, "WebP": .webp]
        // HEIF holds AVIF and HEIC alike; only the loader knows which, so it is always rendered.
        guard let own = formats[header.format], format == nil || format == own, header.orientation <= 1,
              !header.metadata.exif, !header.metadata.xmp, !header.metadata.iptc else { return nil }
        return EncodedImage(data: data, format: own, width: header.width, height: header.height, quality: nil, encodes: 0)
    }
}

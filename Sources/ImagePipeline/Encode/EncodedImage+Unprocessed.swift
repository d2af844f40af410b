import Foundation

extension EncodedImage {
    /// Why a source's own bytes are not sent as they are: the part of the file a render would drop.
    public struct NotSendableAsIs: Error, Sendable, Equatable {
        public let reason: String
    }

    /// The source's own bytes as the output (imgproxy's `raw` and `skip_processing`), when they are
    /// already what a render would be safe to send: a format this pipeline writes, `format` if given,
    /// and every part of the file one that shows pixels (`ContainerParts`: an allow-list, so no
    /// EXIF, GPS, text chunk, trailing file or profile leaves through a shortcut; with no EXIF the
    /// bytes are upright too). Otherwise the part found. The header is read as for any render, so the
    /// loader allow-list and `maxPixels` still hold.
    public static func unprocessed(_ source: ImageSource, as format: OutputFormat? = nil, maxPixels: Int) throws(ImagePipelineError) -> Result<EncodedImage, NotSendableAsIs> {
        let data = try source.bytes()
        let header = try ImageHeader.read(data, fileName: source.fileName)
        guard header.pixelCount <= maxPixels else { throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels) }
        let formats: [String: OutputFormat] = ["JPEG": .jpeg, "PNG": .png, "WebP": .webp]
        // HEIF holds AVIF and HEIC alike; only the loader knows which, so it is always rendered.
        guard let own = formats[header.format] else { return .failure(NotSendableAsIs(reason: "it is \(header.format), not JPEG, PNG or WebP")) }
        if let format, format != own { return .failure(NotSendableAsIs(reason: "it is \(header.format), not \(format.rawValue)")) }
        if let part = ContainerParts.firstUnsendablePart(in: data, format: own) { return .failure(NotSendableAsIs(reason: "it holds \(part)")) }
        return .success(EncodedImage(data: data, format: own, width: header.width, height: header.height, quality: nil, encodes: 0))
    }
}

import CVips

extension DecodedImage {
    /// 8-bit sRGB pixels (`width` × `height`, 3 bytes a pixel) made by our own code from this image,
    /// as an image of the same source and scale: a cut-out put on white.
    func replacingPixels(_ rgb: [UInt8], width: Int, height: Int) throws(ImagePipelineError) -> DecodedImage {
        let made = rgb.withUnsafeBytes { bytes in
            vips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }
        guard let made else { throw .processingFailed(detail: VipsErrorLog.take(for: image.origin)) }
        made.pointee.Type = VIPS_INTERPRETATION_sRGB
        return DecodedImage(image: VipsImageHandle(taking: made, origin: image.origin), source: source, sourceScale: sourceScale)
    }
}

import CVips

extension DecodedImage {
    /// Runs one of our C measures (`mi_photo_look`, `mi_photo_frame`) on these pixels as they are
    /// uploaded: transparency on white, 8-bit sRGB, 3 bytes a pixel, with the width and height. A
    /// measure that fails (non-zero: out of memory) is `processingFailed` naming `what`.
    func measure(_ what: String, _ body: (UnsafePointer<UInt8>?, Int32, Int32) -> Int32) throws(ImagePipelineError) {
        let flat = try flattened()
        let status = try flat.withSRGBBytes(alpha: false) { rgb in body(rgb.baseAddress, Int32(flat.width), Int32(flat.height)) }
        guard status == 0 else { throw .processingFailed(detail: "\(what) could not be measured (out of memory)") }
    }

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

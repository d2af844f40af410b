import CVips

/// Draws `spec.watermark` over the finished canvas (imgproxy's last pixel step): decoded as any
/// source is, fitted to `scale` of the output when asked, then placed at its gravity (hanging over
/// the edge if its offsets say so) or tiled with its offsets as the spacing.
struct WatermarkStep: RenderStep {
    /// A watermark has at most this many pixels: a logo, not a photo (refused otherwise).
    static let maxPixels = 16_000_000

    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let watermark = spec.watermark, watermark.opacity > 0 else { return image }
        let box = watermark.scale > 0
            ? (max(1, Int((Double(image.width) * watermark.scale).rounded())), max(1, Int((Double(image.height) * watermark.scale).rounded())))
            : (image.width * 4, image.height * 4)
        var mark = try DecodedImage.decode(.data(watermark.image), maxPixels: Self.maxPixels) { _ in box }
        if watermark.scale > 0 { mark = try mark.fitting(box: box, crop: VIPS_INTERESTING_NONE, enlarge: true) }
        switch watermark.placement {
        case .replicate:
            // The spacing is padding around each tile, split evenly, as imgproxy pads before tiling.
            let spaceX = max(0, RenderSpec.Offset.pixels(watermark.offset.x, along: image.width))
            let spaceY = max(0, RenderSpec.Offset.pixels(watermark.offset.y, along: image.height))
            if spaceX > 0 || spaceY > 0 {
                mark = try mark.embedded(x: spaceX / 2, y: spaceY / 2, width: mark.width + spaceX, height: mark.height + spaceY, colour: [0, 0, 0], transparent: true)
            }
            return try image.overlaid(with: try mark.tiled(width: image.width, height: image.height), x: 0, y: 0, opacity: watermark.opacity)
        case .gravity(let gravity):
            let (x, y) = gravity.position(of: (mark.width, mark.height), in: (image.width, image.height), offset: watermark.offset, overhang: true)
            return try image.overlaid(with: mark, x: x, y: y, opacity: watermark.opacity)
        }
    }
}

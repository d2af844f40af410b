/// The resized photo extended to the box (or its aspect ratio), centred, and padded, on the spec's
/// background: a product shown whole in a square cell instead of cropped.
struct ExtendStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        var (width, height) = (image.width, image.height)
        if spec.extend {
            (width, height) = (max(width, spec.width), max(height, spec.height))
        } else if spec.extendAspectRatio, spec.width > 0, spec.height > 0 {
            let ratio = Double(spec.width) / Double(spec.height)
            if Double(width) / Double(height) > ratio {
                height = Int((Double(width) / ratio).rounded())
            } else {
                width = Int((Double(height) * ratio).rounded())
            }
        }
        let padding = spec.padding
        guard width != image.width || height != image.height || !padding.isZero else { return image }
        let colour: [Double]
        if let rgb = spec.background.rgb { colour = rgb } else { colour = try image.edgeColour() }
        return try image.embedded(x: padding.left + (width - image.width) / 2, y: padding.top + (height - image.height) / 2,
                                  width: width + padding.left + padding.right, height: height + padding.top + padding.bottom, colour: colour)
    }
}

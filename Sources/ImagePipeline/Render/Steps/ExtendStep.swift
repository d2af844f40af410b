import CVips

/// The resized photo extended to the box (or its aspect ratio), centred, and padded, on the spec's
/// background: a product shown whole in a square cell instead of cropped. A canvas beyond
/// `spec.maxEdge` (large padding, an extreme aspect ratio) is never built: photo, extension and
/// padding are scaled down together first, so the canvas is at most the output's limit.
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
        var padding = spec.padding
        guard width != image.width || height != image.height || !padding.isZero else { return image }
        var photo = image
        let canvas = max(width + padding.left + padding.right, height + padding.top + padding.bottom)
        if let maxEdge = spec.maxEdge, canvas > maxEdge {
            let factor = Double(maxEdge) / Double(canvas)
            func scaled(_ value: Int) -> Int { Int((Double(value) * factor).rounded(.down)) }
            photo = try image.fitting(box: (max(1, scaled(image.width)), max(1, scaled(image.height))), crop: VIPS_INTERESTING_NONE)
            (width, height) = (max(photo.width, scaled(width)), max(photo.height, scaled(height)))
            padding = RenderSpec.Padding(top: scaled(padding.top), right: scaled(padding.right), bottom: scaled(padding.bottom), left: scaled(padding.left))
        }
        let colour: [Double]
        if let rgb = spec.background.rgb { colour = rgb } else { colour = try photo.edgeColour() }
        return try photo.embedded(x: padding.left + (width - photo.width) / 2, y: padding.top + (height - photo.height) / 2,
                                  width: width + padding.left + padding.right, height: height + padding.top + padding.bottom, colour: colour)
    }
}

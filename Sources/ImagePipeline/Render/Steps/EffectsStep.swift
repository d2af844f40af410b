/// imgproxy's filters on the resized photo, in its order: `blur`, `sharpen`, then `pixelate`.
struct EffectsStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        try image.filtered(blur: spec.blur, sharpen: spec.sharpen).pixelated(size: spec.pixelate)
    }
}

/// Cuts a uniform border (`spec.trim`) before anything is resized, so a product shot on a sweep fills
/// its box. Runs on the decode, which `RenderSpec.decodeBox` made twice the box for this.
struct TrimStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let trim = spec.trim else { return image }
        return try image.trimmed(threshold: trim.threshold, colour: trim.colour.rgb, equalHorizontal: trim.equalHorizontal,
                                 equalVertical: trim.equalVertical)
    }
}

/// One stage of the render pipeline: pixels in, pixels out, reading only its own part of the spec.
/// A step that has nothing to do for a spec returns its input untouched, so every spec runs the same
/// list (`ImageRenderer.steps`) and a new pixel option is one new step at its place in the order.
protocol RenderStep: Sendable {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage
}

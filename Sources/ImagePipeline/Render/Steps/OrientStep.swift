/// Turns and mirrors the upright photo as `spec.rotation` and the flips say (imgproxy's `rotate`,
/// `flip`), before anything is cut or resized: the box, the crop and the gravity are those of the
/// image the viewer sees. imgproxy turns after resizing and maps the gravity back instead; the
/// pixels are the same, and the decode turned here is already shrunk on load.
struct OrientStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        try image.oriented(degrees: spec.rotation, flipHorizontal: spec.flipHorizontal, flipVertical: spec.flipVertical)
    }
}

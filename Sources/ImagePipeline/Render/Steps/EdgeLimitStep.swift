import CVips

/// The last pixel step: no side beyond `spec.maxEdge`, whatever the steps before made of the request
/// (a URL with no size, a forced or one-sided box on a sliver, padding on a large fit).
struct EdgeLimitStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let maxEdge = spec.maxEdge, image.longEdge > maxEdge else { return image }
        return try image.fitting(box: (maxEdge, maxEdge), crop: VIPS_INTERESTING_NONE)
    }
}

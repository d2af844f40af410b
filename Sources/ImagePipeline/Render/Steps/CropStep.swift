import CVips

/// Cuts `spec.crop` out of the photo before it is resized (imgproxy's `crop`): sizes in the upright
/// source's pixels (scaled to the decode, which may have shrunk on load) or fractions of it, placed
/// by the crop's gravity or the spec's.
struct CropStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let crop = spec.crop else { return image }
        let width = crop.side(crop.width, of: image.width, scale: image.sourceScale)
        let height = crop.side(crop.height, of: image.height, scale: image.sourceScale)
        guard width < image.width || height < image.height else { return image }
        let gravity = crop.gravity ?? spec.gravity
        if gravity == .attention { return try image.smartCropped(width: width, height: height) }
        let (x, y) = gravity.position(of: (width, height), in: (image.width, image.height),
                                      offset: crop.gravity == nil ? spec.gravityOffset : crop.offset, pixelScale: image.sourceScale)
        return try image.cropped(x: x, y: y, width: width, height: height)
    }
}

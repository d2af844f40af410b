import CVips

/// Resizes and crops to the box as `spec.resizing` and `spec.gravity` say, enlarging only when
/// `spec.enlarge` allows. With `spec.framing`, the photo is first cut to that square (as `fill-down`)
/// and the output fitted from the square, so every size shows the same framing.
struct ResizeStep: RenderStep {
    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let side = spec.framing else { return try resize(image, spec) }
        var square = spec
        (square.width, square.height, square.resizing, square.framing) = (side, side, .fillDown, nil)
        let master = try resize(image, square)
        let box = (width: spec.width > 0 ? spec.width : DecodedImage.unbounded, height: spec.height > 0 ? spec.height : DecodedImage.unbounded)
        return try master.fitting(box: box, crop: VIPS_INTERESTING_NONE, enlarge: spec.enlarge)
    }

    private func resize(_ image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        let (w, h) = (spec.width, spec.height)
        let (sourceWidth, sourceHeight) = (Double(image.width), Double(image.height))
        switch spec.effectiveResizing(uprightWidth: image.width, uprightHeight: image.height) {
        case .fit, .auto:
            guard w > 0 || h > 0 else { return try zoomed(image, spec) }
            let scale = min(w > 0 ? Double(w) / sourceWidth : .infinity, h > 0 ? Double(h) / sourceHeight : .infinity, spec.enlarge ? .infinity : 1)
            let least = minimumScale(image, spec)
            guard least > scale else {
                return try image.fitting(box: (w > 0 ? w : DecodedImage.unbounded, h > 0 ? h : DecodedImage.unbounded),
                                         crop: VIPS_INTERESTING_NONE, enlarge: spec.enlarge)
            }
            return try image.scaled(horizontally: least, vertically: least)
        case .force:
            var horizontal = w > 0 ? Double(w) / sourceWidth : Double(h) / sourceHeight
            var vertical = h > 0 ? Double(h) / sourceHeight : horizontal
            if w == 0 && h == 0 { (horizontal, vertical) = (1, 1) }
            if !spec.enlarge { (horizontal, vertical) = (min(horizontal, 1), min(vertical, 1)) }
            // As imgproxy: a side below its minimum scales both up by what it lacks.
            for (minimum, side, isWidth) in [(spec.minWidth, sourceWidth, true), (spec.minHeight, sourceHeight, false)] where minimum > 0 {
                let factor = Double(minimum) / (side * (isWidth ? horizontal : vertical))
                if factor > 1 { (horizontal, vertical) = (horizontal * factor, vertical * factor) }
            }
            guard horizontal != 1 || vertical != 1 else { return image }
            return try image.scaled(horizontally: horizontal, vertically: vertical)
        case .fill, .fillDown:
            return try fill(image, spec, box: cropBox(spec, sourceWidth: sourceWidth, sourceHeight: sourceHeight))
        }
    }

    /// The crop's size: the box, or without `enlarge` on a photo too small to cover it, what the
    /// photo can fill (`fill`) or the largest box of the same shape inside the photo (`fill-down`).
    private func cropBox(_ spec: RenderSpec, sourceWidth: Double, sourceHeight: Double) -> (width: Int, height: Int) {
        let (w, h) = (spec.width, spec.height)
        let cover = max(Double(w) / sourceWidth, Double(h) / sourceHeight)
        guard cover > 1, !spec.enlarge else { return (w, h) }
        if spec.resizing == .fillDown {
            let factor = min(sourceWidth / Double(w), sourceHeight / Double(h))
            return (max(1, Int((Double(w) * factor).rounded())), max(1, Int((Double(h) * factor).rounded())))
        }
        return (min(w, Int(sourceWidth)), min(h, Int(sourceHeight)))
    }

    private func fill(_ image: DecodedImage, _ spec: RenderSpec, box: (width: Int, height: Int)) throws(ImagePipelineError) -> DecodedImage {
        let cover = max(Double(box.width) / Double(image.width), Double(box.height) / Double(image.height))
        let least = minimumScale(image, spec)
        switch spec.gravity {
        case .centre where spec.gravityOffset == RenderSpec.Offset() && least <= cover:
            return try image.fitting(box: box, crop: VIPS_INTERESTING_CENTRE, enlarge: spec.enlarge)
        case .attention where least <= cover:
            return try image.fitting(box: box, crop: VIPS_INTERESTING_ATTENTION, enlarge: spec.enlarge)
        case .attention:
            let covering = try image.scaled(horizontally: least, vertically: least)
            return try covering.smartCropped(width: min(box.width, covering.width), height: min(box.height, covering.height))
        default:
            // Scale to cover the box (or to the minimum sizes), then cut it where the gravity says.
            let scale = max(cover, least)
            let bound = spec.maxEdge ?? DecodedImage.unbounded
            if Double(max(image.width, image.height)) * scale > Double(bound) { return try cutThenScale(image, spec, box: box, scale: scale) }
            let covering = scale == 1 ? image : try image.scaled(horizontally: scale, vertically: scale)
            let width = min(box.width, covering.width), height = min(box.height, covering.height)
            let (x, y) = spec.gravity.position(of: (width, height), in: (covering.width, covering.height), offset: spec.gravityOffset)
            return try covering.cropped(x: x, y: y, width: width, height: height)
        }
    }

    /// The same cut, made in the photo before it is enlarged, when the covering image would be past
    /// the output's limit (a sliver enlarged to fill a large box): only what is kept is ever scaled.
    private func cutThenScale(_ image: DecodedImage, _ spec: RenderSpec, box: (width: Int, height: Int), scale: Double) throws(ImagePipelineError) -> DecodedImage {
        let width = max(1, min(image.width, Int((Double(box.width) / scale).rounded(.up))))
        let height = max(1, min(image.height, Int((Double(box.height) / scale).rounded(.up))))
        // Offsets in pixels are the output's: in the photo they are that many over the scale.
        let (x, y) = spec.gravity.position(of: (width, height), in: (image.width, image.height), offset: spec.gravityOffset, pixelScale: 1 / scale)
        let cut = try image.cropped(x: x, y: y, width: width, height: height)
        return try cut.scaled(horizontally: Double(box.width) / Double(width), vertically: Double(box.height) / Double(height))
    }

    /// The scale below which `spec.minWidth` or `spec.minHeight` would not be met (0 when neither is set).
    private func minimumScale(_ image: DecodedImage, _ spec: RenderSpec) -> Double {
        max(Double(spec.minWidth) / Double(image.width), Double(spec.minHeight) / Double(image.height))
    }

    /// An unsized output: the photo at `spec.zoom` of the source's size (never above it without
    /// `enlarge`: the larger factor is then 1), and at least the minimum sizes.
    private func zoomed(_ image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard spec.zoom != RenderSpec.Offset(x: 1, y: 1) || spec.minWidth > 0 || spec.minHeight > 0 else { return image }
        var (horizontal, vertical) = (spec.zoom.x, spec.zoom.y)
        if !spec.enlarge, max(horizontal, vertical) > 1 { (horizontal, vertical) = (horizontal / max(horizontal, vertical), vertical / max(horizontal, vertical)) }
        // Relative to the decode, which may have shrunk on load.
        (horizontal, vertical) = (horizontal / image.sourceScale, vertical / image.sourceScale)
        let least = minimumScale(image, spec)
        if least > min(horizontal, vertical) {
            let factor = least / min(horizontal, vertical)
            (horizontal, vertical) = (horizontal * factor, vertical * factor)
        }
        guard abs(horizontal - 1) > 1e-9 || abs(vertical - 1) > 1e-9 else { return image }
        return try image.scaled(horizontally: horizontal, vertically: vertical)
    }
}

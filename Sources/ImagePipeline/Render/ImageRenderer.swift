import CVips
import Foundation

/// Makes one output from a photo: resized per a `RenderSpec`, encoded, under its byte budget if it
/// has one. Folder thumbnails and the thumbnail service both render through this.
public struct ImageRenderer: Sendable {
    public let spec: RenderSpec

    /// Refuses a spec out of range (see `RenderSpec.problems`) before any work.
    public init(spec: RenderSpec) throws(ImagePipelineError) {
        self.spec = try spec.validated()
    }

    /// Decodes the source at the size this spec needs, then renders it.
    public func render(_ source: ImageSource, maxPixels: Int, draft: Bool = false) throws(ImagePipelineError) -> EncodedImage {
        let decoded = try DecodedImage.decode(source, maxPixels: maxPixels, draft: draft) { header in
            spec.decodeBox(uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight)
        }
        return try render(decoded)
    }

    public func render(_ decoded: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        try encode(try resize(decoded))
    }

    func encode(_ image: DecodedImage) throws(ImagePipelineError) -> EncodedImage {
        guard let maxBytes = spec.maxBytes else {
            let data = try ImageEncoder.encode(image, as: spec.format, quality: spec.quality, settings: spec.encoder)
            return EncodedImage(data: data, format: spec.format, width: image.width, height: image.height,
                                quality: spec.format == .png ? nil : spec.quality, encodes: 1)
        }
        return try BudgetEncoder(format: spec.format, maxBytes: maxBytes,
                                 qualities: min(spec.minQuality, spec.quality)...spec.quality,
                                 minEdge: RenderSpec.minimumEdge, settings: spec.encoder).encode(image)
    }

    /// The pixels of the output, before encoding, within `maxEdge` whatever the spec asked.
    func resize(_ decoded: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        let resized = try framed(try resizeAsAsked(try trimmed(decoded)))
        guard let maxEdge = spec.maxEdge, resized.longEdge > maxEdge else { return resized }
        return try resized.fitting(box: (maxEdge, maxEdge), crop: VIPS_INTERESTING_NONE)
    }

    private func trimmed(_ decoded: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        guard let trim = spec.trim else { return decoded }
        let colour: [Double]? = switch trim.colour {
        case .colour(let red, let green, let blue): [Double(red), Double(green), Double(blue)]
        case .edge: nil
        }
        return try decoded.trimmed(threshold: trim.threshold, colour: colour, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical)
    }

    /// The resized photo extended to the box (or its aspect ratio), centred, and padded, on the
    /// spec's background: a product shown whole in a square cell instead of cropped.
    private func framed(_ image: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
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
        switch spec.background {
        case .colour(let red, let green, let blue): colour = [Double(red), Double(green), Double(blue)]
        case .edge: colour = try image.edgeColour()
        }
        return try image.embedded(x: padding.left + (width - image.width) / 2, y: padding.top + (height - image.height) / 2,
                                  width: width + padding.left + padding.right, height: height + padding.top + padding.bottom, colour: colour)
    }

    private func resizeAsAsked(_ decoded: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        guard let side = spec.framing else { return try resizeUnframed(decoded) }
        var square = spec
        (square.width, square.height, square.resizing, square.framing) = (side, side, .fillDown, nil)
        let master = try ImageRenderer(spec: square).resizeUnframed(decoded)
        let box = (width: spec.width > 0 ? spec.width : DecodedImage.unbounded, height: spec.height > 0 ? spec.height : DecodedImage.unbounded)
        return try master.fitting(box: box, crop: VIPS_INTERESTING_NONE, enlarge: spec.enlarge)
    }

    private func resizeUnframed(_ decoded: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        let (w, h) = (spec.width, spec.height)
        let (sourceWidth, sourceHeight) = (Double(decoded.width), Double(decoded.height))
        switch spec.effectiveResizing(uprightWidth: decoded.width, uprightHeight: decoded.height) {
        case .fit, .auto:
            guard w > 0 || h > 0 else { return decoded }
            return try decoded.fitting(box: (w > 0 ? w : DecodedImage.unbounded, h > 0 ? h : DecodedImage.unbounded),
                                       crop: VIPS_INTERESTING_NONE, enlarge: spec.enlarge)
        case .force:
            var horizontal = w > 0 ? Double(w) / sourceWidth : Double(h) / sourceHeight
            var vertical = h > 0 ? Double(h) / sourceHeight : horizontal
            if w == 0 && h == 0 { (horizontal, vertical) = (1, 1) }
            if !spec.enlarge { (horizontal, vertical) = (min(horizontal, 1), min(vertical, 1)) }
            guard horizontal != 1 || vertical != 1 else { return decoded }
            return try decoded.scaled(horizontally: horizontal, vertically: vertical)
        case .fill, .fillDown:
            return try fill(decoded, box: cropBox(sourceWidth: sourceWidth, sourceHeight: sourceHeight))
        }
    }

    /// The crop's size: the box, or without `enlarge` on a photo too small to cover it, what the
    /// photo can fill (`fill`) or the largest box of the same shape inside the photo (`fill-down`).
    private func cropBox(sourceWidth: Double, sourceHeight: Double) -> (width: Int, height: Int) {
        let (w, h) = (spec.width, spec.height)
        let cover = max(Double(w) / sourceWidth, Double(h) / sourceHeight)
        guard cover > 1, !spec.enlarge else { return (w, h) }
        if spec.resizing == .fillDown {
            let factor = min(sourceWidth / Double(w), sourceHeight / Double(h))
            return (max(1, Int((Double(w) * factor).rounded())), max(1, Int((Double(h) * factor).rounded())))
        }
        return (min(w, Int(sourceWidth)), min(h, Int(sourceHeight)))
    }

    private func fill(_ decoded: DecodedImage, box: (width: Int, height: Int)) throws(ImagePipelineError) -> DecodedImage {
        switch spec.gravity {
        case .centre:
            return try decoded.fitting(box: box, crop: VIPS_INTERESTING_CENTRE, enlarge: spec.enlarge)
        case .attention:
            return try decoded.fitting(box: box, crop: VIPS_INTERESTING_ATTENTION, enlarge: spec.enlarge)
        default:
            // Scale to cover the box, then cut it at the edge or corner the gravity names.
            let scale = max(Double(box.width) / Double(decoded.width), Double(box.height) / Double(decoded.height))
            let covering = scale == 1 ? decoded : try decoded.scaled(horizontally: scale, vertically: scale)
            let width = min(box.width, covering.width), height = min(box.height, covering.height)
            let (x, y) = offsets(spareWidth: covering.width - width, spareHeight: covering.height - height)
            return try covering.cropped(x: x, y: y, width: width, height: height)
        }
    }

    private func offsets(spareWidth: Int, spareHeight: Int) -> (Int, Int) {
        let name = spec.gravity.rawValue
        let x = name.hasSuffix("we") ? 0 : name.hasSuffix("ea") ? spareWidth : spareWidth / 2
        let y = name.hasPrefix("no") ? 0 : name.hasPrefix("so") ? spareHeight : spareHeight / 2
        return (x, y)
    }
}

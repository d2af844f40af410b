import CKernels
import CVips
import Foundation

/// A source photo decoded once: upright, sRGB (or 8-bit greyscale), metadata-free by the time it is
/// saved, its pixels in memory. Every output — the upload image, each thumbnail, a service response —
/// is derived from this without touching the source again.
public struct DecodedImage: Sendable {
    let image: VipsImageHandle
    /// The source's header, as read before decoding.
    public let source: ImageHeader
    /// Pixels here per pixel of the upright source: below 1 when it shrank on load or was resized
    /// since (a crop given in the source's pixels is scaled by it).
    var sourceScale = 1.0

    public var width: Int { image.width }
    public var height: Int { image.height }
    public var longEdge: Int { max(width, height) }

    /// Decodes a file; see `decode(_:maxPixels:box:)`.
    public static func decode(
        file path: String, maxPixels: Int, box: (ImageHeader) -> (width: Int, height: Int)
    ) throws(ImagePipelineError) -> DecodedImage {
        try decode(.file(path), maxPixels: maxPixels, box: box)
    }

    /// Decodes straight to fit inside a box (upright dimensions) using shrink-on-load (JPEG DCT
    /// scaling, HEIF/WebP scaled decode), which is both faster and far leaner than a full decode
    /// followed by a resize. `box` sees the header, so a caller can size it by the photo's shape; the
    /// pixel limit is checked against the header before anything is decoded.
    ///
    /// RGB and greyscale JPEGs take their own path (`mi_jpeg_thumbnail`, see `JPEGFit`): DCT-scaled as
    /// libvips would, then shrunk with a vectorised Lanczos3 as rows arrive, without libvips' per-image
    /// pipeline: the quality of `vips_thumbnail` in about two thirds of its time. `draft` decodes them
    /// straight to the box instead, as Pillow's draft mode (and so thumbor) does: faster again, softer
    /// and blockier.
    ///
    /// An animated GIF or WebP keeps up to `frames` of its frames (all fitted into the box, stacked
    /// as libvips lays an animation out); the pixel limit counts every frame kept, so a bomb of many
    /// frames is refused as one of many pixels is.
    public static func decode(
        _ source: ImageSource, maxPixels: Int, draft: Bool = false, frames: Int = 1, box: (ImageHeader) -> (width: Int, height: Int)
    ) throws(ImagePipelineError) -> DecodedImage {
        let data = try source.bytes()
        let header = try ImageHeader.read(data, fileName: source.fileName)
        let pages = header.frames(keepingAtMost: frames)
        guard header.pixelCount <= maxPixels / pages else {
            throw .tooManyPixels(width: header.width, height: header.height * pages, limit: maxPixels)
        }
        let (boxWidth, boxHeight) = box(header)
        let width = try VipsArgument.int32(min(boxWidth, Self.unbounded), "width")
        let height = try VipsArgument.int32(min(boxHeight, Self.unbounded), "height")
        // An embedded profile (Display P3, Adobe RGB) or CMYK needs a real colour transform; stripping
        // the profile from unconverted pixels would shift every colour. Greyscale stays greyscale.
        let exportProfile: String? = header.isCMYKOrProfiled ? "srgb" : nil
        let origin = VipsErrorLog.Source(loader: header.loader, format: header.format, fileName: source.fileName)
        let damaged = { (detail: String) in ImagePipelineError.damaged(format: header.format, detail: detail) }
        Self.counter.withLock { $0 += 1 }
        // Every JPEG shrinks on load in our own decode, CMYK too (converted through its own profile
        // once small); a CMYK TIFF is loaded whole and converted (see `fromCMYK`); everything else
        // shrinks on load in libvips. fail_on only takes effect while pixels are read: a truncated
        // JPEG fails at materialising, not as grey, so every path materialises while the bytes are pinned.
        let jpeg = header.format == "JPEG" ? JPEGFit(header: header, box: (Int(width), Int(height)), headroom: draft ? 1 : 2) : nil
        let wholeCMYK = header.isCMYK && jpeg == nil
        func decode(_ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws(ImagePipelineError) -> VipsImageHandle {
            let loaded = try VipsImageHandle.make(origin: origin, damaged, operation)
            return try (wholeCMYK ? loaded.fromCMYK(into: (width, height)) : loaded.normalisedTo8BitDisplay()).materialized()
        }
        let decoded = try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
            let (base, count) = (bytes.baseAddress, bytes.count)
            return try decode { out in
                if let jpeg {
                    return out.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { image in
                        mi_jpeg_thumbnail(base, count, Int32(jpeg.scale), jpeg.shrink, Int32(jpeg.width), Int32(jpeg.height),
                                          Int32(header.orientation), exportProfile == nil ? 0 : 1, image)
                    }
                }
                if wholeCMYK { return mi_load_buffer(base, count, out) }
                return mi_thumbnail_buffer(base, count, out, width, height, exportProfile, Int32(pages))
            }
        }
        // The pixels are in memory; metadata blobs may still point into the caller's bytes.
        mi_remove_blob_fields(decoded.pointer)
        VipsErrorLog.drain()
        return DecodedImage(image: decoded, source: header, sourceScale: Double(decoded.width) / Double(max(1, header.uprightWidth)))
    }

    /// Bytes this process encoded, decoded whole as a viewer decodes them (to score them): no
    /// allow-list, since they are ours (JPEG XL among them, which no source may be), and no source
    /// decode counted.
    static func readingBack(_ data: Data) throws(ImagePipelineError) -> DecodedImage {
        let origin = VipsErrorLog.Source(loader: "read-back", format: "output", fileName: nil)
        let damaged = { (detail: String) in ImagePipelineError.processingFailed(detail: detail) }
        let decoded = try ImageSource.pinning(data) { bytes throws(ImagePipelineError) in
            try VipsImageHandle.make(origin: origin, damaged) { mi_load_buffer(bytes.baseAddress, bytes.count, $0) }
                .normalisedTo8BitDisplay().materialized()
        }
        mi_remove_blob_fields(decoded.pointer)
        VipsErrorLog.drain()
        return DecodedImage(image: decoded, source: ImageHeader(decoded))
    }

    /// A box side that does not constrain: libvips' own coordinate limit.
    static let unbounded = Int(VIPS_MAX_COORD)

    /// Source decodes in this process, so tests can prove that every output of a photo came from one.
    static let counter = Locked(0)

    /// How many frames of an animation this holds (1 for a still).
    public var frameCount: Int {
        guard let pageHeight = image.int("page-height"), pageHeight > 0, pageHeight < height, height % pageHeight == 0 else { return 1 }
        return height / pageHeight
    }

    /// Each frame of an animation as an image of its own (the image itself for a still).
    func frames() throws(ImagePipelineError) -> [DecodedImage] {
        let count = frameCount
        guard count > 1 else { return [self] }
        let frameHeight = height / count
        return try (0..<count).map { index throws(ImagePipelineError) in try cropped(x: 0, y: index * frameHeight, width: width, height: frameHeight) }
    }

    /// Frames of one size as one animation, timed as `timing` (the decoded source) was.
    static func animation(_ frames: [DecodedImage], timing: DecodedImage) throws(ImagePipelineError) -> DecodedImage {
        guard let first = frames.first, frames.count > 1 else { return frames.first ?? timing }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.image.pointer)
        let joined = try first.image.then { _, out in mi_join_frames(&pointers, Int32(pointers.count), timing.image.pointer, out) }
        return DecodedImage(image: try withExtendedLifetime(frames) { () throws(ImagePipelineError) in try joined.materialized() },
                            source: first.source, sourceScale: first.sourceScale)
    }

    /// A copy resized to fit `edge`, for budget shrinking; pixels stay in memory.
    func fitting(edge: Int) throws(ImagePipelineError) -> DecodedImage {
        try fitting(box: (edge, edge), crop: VIPS_INTERESTING_NONE)
    }

    /// A copy resized into a box, cropped to fill it unless `crop` is none; enlarged only if asked.
    /// An image already inside the box is itself the fit (a decode usually fitted it already).
    func fitting(box: (width: Int, height: Int), crop: VipsInteresting, enlarge: Bool = false) throws(ImagePipelineError) -> DecodedImage {
        if crop == VIPS_INTERESTING_NONE, !enlarge, width <= box.width, height <= box.height { return self }
        let width = try VipsArgument.int32(min(box.width, Self.unbounded), "width")
        let height = try VipsArgument.int32(min(box.height, Self.unbounded), "height")
        let size = enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
        return try derived(resizing: true) { image throws(ImagePipelineError) in try image.then { mi_thumbnail_image($0, $1, width, height, crop, size) } }
    }

    /// A copy scaled by independent factors (lanczos3).
    func scaled(horizontally: Double, vertically: Double) throws(ImagePipelineError) -> DecodedImage {
        try derived(resizing: true) { image throws(ImagePipelineError) in try image.then { mi_resize($0, $1, horizontally, vertically) } }
    }

    /// A rectangle of this image; the caller keeps it inside the bounds.
    func cropped(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> DecodedImage {
        let rectangle = try [x, y, width, height].map { value throws(ImagePipelineError) in try VipsArgument.int32(value, "crop") }
        return try derived { image throws(ImagePipelineError) in
            try image.then { mi_crop($0, $1, rectangle[0], rectangle[1], rectangle[2], rectangle[3]) }
        }
    }

    /// The most salient `width`×`height` of this image (libvips' attention measure), unscaled.
    func smartCropped(width: Int, height: Int) throws(ImagePipelineError) -> DecodedImage {
        let (w, h) = (try VipsArgument.int32(width, "crop"), try VipsArgument.int32(height, "crop"))
        return try derived { image throws(ImagePipelineError) in try image.then { mi_smartcrop($0, $1, w, h) } }
    }

    /// This image on a canvas of `width`×`height` at (x, y), the rest filled with `colour` (RGB,
    /// opaque; its mean for a grey image).
    /// With `transparent`, the rest is transparent instead (an alpha band is added if need be).
    func embedded(x: Int, y: Int, width: Int, height: Int, colour: [Double], transparent: Bool = false) throws(ImagePipelineError) -> DecodedImage {
        let box = try [x, y, width, height].map { value throws(ImagePipelineError) in try VipsArgument.int32(value, "padding") }
        let alpha: [Double] = transparent ? [0] : image.hasAlpha ? [255] : []
        let fill = (image.isGrey ? [colour.reduce(0, +) / Double(max(1, colour.count))] : Array(colour.prefix(3))) + alpha
        return try derived { image throws(ImagePipelineError) in
            let source = transparent && !image.hasAlpha ? try image.then { mi_add_alpha($0, $1) } : image
            return try source.then { mi_embed($0, $1, box[0], box[1], box[2], box[3], fill, Int32(fill.count)) }
        }
    }

    /// This image without a uniform border: what differs from `colour` (RGB; nil: the edge colour)
    /// by more than `threshold`, with the margins cut equally on each side when asked. A uniform
    /// image is left whole. Without a colour, an edge more transparent than not is a transparent
    /// border (a cut-out product on nothing, as imgproxy trims it): what is more opaque than
    /// `threshold` is kept, whatever colour the invisible pixels around it hold.
    func trimmed(threshold: Double, colour: [Double]?, equalHorizontal: Bool = false, equalVertical: Bool = false) throws(ImagePipelineError) -> DecodedImage {
        let edge = colour == nil ? try edgeMeans() : []
        let searched: VipsImageHandle, background: [Double]
        if image.hasAlpha, let alpha = edge.last, alpha < 128 {
            let alphaBand = Int32(image.bands - 1)
            searched = try image.then { mi_extract_band($0, $1, alphaBand, 1) }
            background = [0]
        } else {
            let rgb = colour ?? Self.colour(ofBandMeans: edge)
            background = image.isGrey ? [rgb.reduce(0, +) / 3] : rgb
            searched = image.hasAlpha ? try image.then { mi_extract_band($0, $1, 0, Int32(background.count)) } : image
        }
        var (left, top, width, height): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        guard mi_find_trim(searched.pointer, &left, &top, &width, &height, threshold, background, Int32(background.count)) == 0 else {
            throw .processingFailed(detail: VipsErrorLog.take(for: image.origin))
        }
        guard width > 0, height > 0 else { return self }
        var (x, y, w, h) = (Int(left), Int(top), Int(width), Int(height))
        if equalHorizontal {
            let margin = min(x, self.width - x - w)
            (x, w) = (margin, self.width - 2 * margin)
        }
        if equalVertical {
            let margin = min(y, self.height - y - h)
            (y, h) = (margin, self.height - 2 * margin)
        }
        guard (x, y, w, h) != (0, 0, self.width, self.height) else { return self }
        return try cropped(x: x, y: y, width: w, height: h)
    }

    /// The mean colour of the outermost ring of pixels, as RGB: the background of a product shot on
    /// a sweep, which padding in it continues (`bg:auto`).
    func edgeColour() throws(ImagePipelineError) -> [Double] {
        Self.colour(ofBandMeans: try edgeMeans())
    }

    /// Each band's mean over the outermost ring of pixels (the alpha's last, when there is one).
    private func edgeMeans() throws(ImagePipelineError) -> [Double] {
        let strips = [(0, 0, width, 1), (0, height - 1, width, 1), (0, 0, 1, height), (width - 1, 0, 1, height)]
        var sums = [Double](repeating: 0, count: image.bands), weight = 0.0
        for (x, y, w, h) in strips {
            let means = try image.meanBands(x: x, y: y, width: w, height: h)
            for band in sums.indices { sums[band] += means[band] * Double(w * h) }
            weight += Double(w * h)
        }
        return sums.map { $0 / weight }
    }

    /// Band means as a rounded RGB colour: a grey image's one band on all three.
    private static func colour(ofBandMeans means: [Double]) -> [Double] {
        (means.count >= 3 ? Array(means.prefix(3)) : [Double](repeating: means.first ?? 255, count: 3)).map { $0.rounded() }
    }

    /// This image turned clockwise by `degrees` (a multiple of 90), then mirrored as asked.
    func oriented(degrees: Int, flipHorizontal: Bool, flipVertical: Bool) throws(ImagePipelineError) -> DecodedImage {
        var result = self
        let angles = [90: VIPS_ANGLE_D90, 180: VIPS_ANGLE_D180, 270: VIPS_ANGLE_D270]
        if let angle = angles[(degrees % 360 + 360) % 360] {
            result = try result.derived { image throws(ImagePipelineError) in try image.then { mi_rot($0, $1, angle) } }
        }
        for (flip, direction) in [(flipHorizontal, VIPS_DIRECTION_HORIZONTAL), (flipVertical, VIPS_DIRECTION_VERTICAL)] where flip {
            result = try result.derived { image throws(ImagePipelineError) in try image.then { mi_flip($0, $1, direction) } }
        }
        return result
    }

    /// A Gaussian blur (`sigma` > 0), then a sharpen (`sharpen` > 0) of the lightness, as
    /// imgproxy's filters run: on premultiplied pixels when there is transparency.
    func filtered(blur: Double, sharpen: Double) throws(ImagePipelineError) -> DecodedImage {
        guard blur > 0 || sharpen > 0 else { return self }
        return try derived { image throws(ImagePipelineError) in
            let format = image.format
            var working = image.hasAlpha ? try image.then { mi_premultiply($0, $1) } : image
            if blur > 0 { working = try working.then { mi_gaussblur($0, $1, blur) } }
            if sharpen > 0 { working = try working.then { mi_sharpen($0, $1, sharpen) } }
            if image.hasAlpha { working = try working.then { mi_unpremultiply($0, $1) } }
            return working.format == format ? working : try working.then { mi_cast($0, $1, format) }
        }
    }

    /// Blocks of `size`×`size` pixels, each the mean of its block (`pixelate`), aligned at the top
    /// left; a partial block at an edge averages what it covers and its mirror.
    func pixelated(size: Int) throws(ImagePipelineError) -> DecodedImage {
        let size = min(size, longEdge)
        guard size > 1 else { return self }
        let (paddedWidth, paddedHeight) = ((width + size - 1) / size * size, (height + size - 1) / size * size)
        let blocks = try VipsArgument.int32(size, "pixelate")
        let (outWidth, outHeight) = (try VipsArgument.int32(paddedWidth, "pixelate"), try VipsArgument.int32(paddedHeight, "pixelate"))
        let (keepWidth, keepHeight) = (Int32(width), Int32(height))
        return try derived { image throws(ImagePipelineError) in
            let padded = paddedWidth == width && paddedHeight == height ? image : try image.then { mi_embed_mirror($0, $1, outWidth, outHeight) }
            let zoomed = try padded.then { mi_shrink($0, $1, Double(blocks)) }.then { mi_zoom($0, $1, blocks) }
            return try zoomed.then { mi_crop($0, $1, 0, 0, keepWidth, keepHeight) }
        }
    }

    /// `overlay` drawn over this image at (x, y), its alpha times `opacity`; the part outside this
    /// image is cut off first. An opaque image stays opaque (its alpha band is dropped again).
    func overlaid(with overlay: DecodedImage, x: Int, y: Int, opacity: Double) throws(ImagePipelineError) -> DecodedImage {
        let (left, top) = (max(0, -x), max(0, -y))
        let (visibleWidth, visibleHeight) = (min(overlay.width - left, width - max(0, x)), min(overlay.height - top, height - max(0, y)))
        guard visibleWidth > 0, visibleHeight > 0, opacity > 0 else { return self }
        var mark = try overlay.cropped(x: left, y: top, width: visibleWidth, height: visibleHeight).image
        if mark.isGrey { mark = try mark.then { mi_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) } }
        if !mark.hasAlpha { mark = try mark.then { mi_add_alpha($0, $1) } }
        let factors = [1, 1, 1, min(1, opacity)]
        mark = try mark.then { mi_scale_bands($0, $1, factors, 4) }
        let opaque = !image.hasAlpha
        let (atX, atY) = (Int32(max(0, x)), Int32(max(0, y)))
        return try derived { image throws(ImagePipelineError) in
            let base = image.isGrey ? try image.then { mi_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) } : image
            let drawn = try base.then { mi_composite_over($0, mark.pointer, $1, atX, atY) }.then { mi_cast_uchar($0, $1) }
            return opaque ? try drawn.then { mi_extract_band($0, $1, 0, 3) } : drawn
        }
    }

    /// This image repeated to cover `width`×`height`, from the top left.
    func tiled(width: Int, height: Int) throws(ImagePipelineError) -> DecodedImage {
        let (across, down) = (Int32((width + self.width - 1) / self.width), Int32((height + self.height - 1) / self.height))
        let (w, h) = (try VipsArgument.int32(width, "watermark"), try VipsArgument.int32(height, "watermark"))
        return try derived { image throws(ImagePipelineError) in
            try image.then { mi_replicate($0, $1, across, down) }.then { mi_crop($0, $1, 0, 0, w, h) }
        }
    }

    /// Mean value of each band over a rectangle: orientation, colour and flattening judged by pixels.
    public func mean(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> [Double] {
        try image.meanBands(x: x, y: y, width: width, height: height)
    }

    /// A new image from this one's pixels; `resizing` when it changes their scale (a crop does not).
    private func derived(resizing: Bool = false, _ operation: (VipsImageHandle) throws(ImagePipelineError) -> VipsImageHandle) throws(ImagePipelineError) -> DecodedImage {
        let result = try operation(image).materialized()
        let scale = resizing ? sourceScale * Double(result.width) / Double(max(1, width)) : sourceScale
        return DecodedImage(image: result, source: source, sourceScale: scale)
    }

    /// The pixels ready for a given encoding: JPEG gets transparent areas flattened onto white.
    func pixels(for format: OutputFormat) throws(ImagePipelineError) -> VipsImageHandle {
        format.keepsAlpha ? image : try flattened().image
    }

    /// Transparent areas on white, as a JPEG upload shows them.
    func flattened() throws(ImagePipelineError) -> DecodedImage {
        image.hasAlpha ? try derived { image throws(ImagePipelineError) in try image.then { mi_flatten($0, $1, 255, 255) } } : self
    }
}

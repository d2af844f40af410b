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
    public static func decode(
        _ source: ImageSource, maxPixels: Int, draft: Bool = false, box: (ImageHeader) -> (width: Int, height: Int)
    ) throws(ImagePipelineError) -> DecodedImage {
        let data = try source.bytes()
        let header = try ImageHeader.read(data, fileName: source.fileName)
        guard header.pixelCount <= maxPixels else {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
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
                return mi_thumbnail_buffer(base, count, out, width, height, exportProfile)
            }
        }
        // The pixels are in memory; metadata blobs may still point into the caller's bytes.
        mi_remove_blob_fields(decoded.pointer)
        VipsErrorLog.drain()
        return DecodedImage(image: decoded, source: header)
    }

    /// A box side that does not constrain: libvips' own coordinate limit.
    static let unbounded = Int(VIPS_MAX_COORD)

    /// Source decodes in this process, so tests can prove that every output of a photo came from one.
    static let counter = Locked(0)

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
        return try derived { image throws(ImagePipelineError) in try image.then { mi_thumbnail_image($0, $1, width, height, crop, size) } }
    }

    /// A copy scaled by independent factors (lanczos3).
    func scaled(horizontally: Double, vertically: Double) throws(ImagePipelineError) -> DecodedImage {
        try derived { image throws(ImagePipelineError) in try image.then { mi_resize($0, $1, horizontally, vertically) } }
    }

    /// A rectangle of this image; the caller keeps it inside the bounds.
    func cropped(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> DecodedImage {
        let rectangle = try [x, y, width, height].map { value throws(ImagePipelineError) in try VipsArgument.int32(value, "crop") }
        return try derived { image throws(ImagePipelineError) in
            try image.then { mi_crop($0, $1, rectangle[0], rectangle[1], rectangle[2], rectangle[3]) }
        }
    }

    /// This image on a canvas of `width`×`height` at (x, y), the rest filled with `colour` (RGB,
    /// opaque; its mean for a grey image).
    func embedded(x: Int, y: Int, width: Int, height: Int, colour: [Double]) throws(ImagePipelineError) -> DecodedImage {
        let box = try [x, y, width, height].map { value throws(ImagePipelineError) in try VipsArgument.int32(value, "padding") }
        let fill = (image.isGrey ? [colour.reduce(0, +) / Double(max(1, colour.count))] : Array(colour.prefix(3))) + (image.hasAlpha ? [255] : [])
        return try derived { image throws(ImagePipelineError) in
            try image.then { mi_embed($0, $1, box[0], box[1], box[2], box[3], fill, Int32(fill.count)) }
        }
    }

    /// This image without a uniform border: what differs from `colour` (RGB; nil: the edge colour)
    /// by more than `threshold`, with the margins cut equally on each side when asked. A uniform
    /// image is left whole.
    func trimmed(threshold: Double, colour: [Double]?, equalHorizontal: Bool = false, equalVertical: Bool = false) throws(ImagePipelineError) -> DecodedImage {
        let rgb: [Double]
        if let colour { rgb = colour } else { rgb = try edgeColour() }
        let background = image.isGrey ? [rgb.reduce(0, +) / 3] : rgb
        let flat = image.hasAlpha ? try image.then { mi_extract_band($0, $1, 0, Int32(background.count)) } : image
        var (left, top, width, height): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        guard mi_find_trim(flat.pointer, &left, &top, &width, &height, threshold, background, Int32(background.count)) == 0 else {
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
        let strips = [(0, 0, width, 1), (0, height - 1, width, 1), (0, 0, 1, height), (width - 1, 0, 1, height)]
        var sums = [Double](repeating: 0, count: 3), weight = 0.0
        for (x, y, w, h) in strips {
            let means = try image.meanBands(x: x, y: y, width: w, height: h)
            let rgb = means.count >= 3 ? Array(means.prefix(3)) : [Double](repeating: means.first ?? 255, count: 3)
            for band in 0..<3 { sums[band] += rgb[band] * Double(w * h) }
            weight += Double(w * h)
        }
        return sums.map { ($0 / weight).rounded() }
    }

    /// Mean value of each band over a rectangle: orientation, colour and flattening judged by pixels.
    public func mean(x: Int, y: Int, width: Int, height: Int) throws(ImagePipelineError) -> [Double] {
        try image.meanBands(x: x, y: y, width: width, height: height)
    }

    private func derived(_ operation: (VipsImageHandle) throws(ImagePipelineError) -> VipsImageHandle) throws(ImagePipelineError) -> DecodedImage {
        DecodedImage(image: try operation(image).materialized(), source: source)
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

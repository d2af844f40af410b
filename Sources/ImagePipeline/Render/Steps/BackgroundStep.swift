import CKernels
import Foundation

/// `--background white` (`spec.productBackground`): the product's mask from the segmentation model
/// on the fitted pixels, everything else made pure white (RGB 255), then the product's bounding box
/// scaled and centred so its longer side is `fill` of a square canvas as large as the fitted photo's
/// long edge. Runs after the resize, so the model and the composite see the pixels the listing gets,
/// and before effects and extension. A mask that finds no product, cannot tell it from its ground,
/// is unsure of a sizeable part inside it, or keeps a sizeable region inside it that has the ground's
/// colours, fails the photo by name (`productNotFound`) rather than cut it out wrong.
struct BackgroundStep: RenderStep {
    /// Under this share of the frame the model found no product.
    static let leastProduct = 0.005
    /// Over this share it found no background to replace.
    static let mostProduct = 0.97
    /// More than this share of the mask unsure (neither product nor ground) is a model that cannot
    /// tell them apart: glass, a white product on white.
    static let mostUnsure = 0.45
    /// More than this share of the product under a thick unsure region inside its outline is a part
    /// the mask half lost (drawn faint or white): a bottle's dark cap is 2.8% of the bottle; the made
    /// cases on textured grounds measure 0–0.5% (1.2% while a mug's handle hole, which is ground,
    /// was kept), a white mug on white 3.7% (BENCHMARKS.md).
    static let mostDoubtful = 0.02

    func apply(to image: DecodedImage, _ spec: RenderSpec) throws(ImagePipelineError) -> DecodedImage {
        guard let background = spec.productBackground else { return image }
        let model = try BackgroundModel.path(background.model)
        let runtime = try MaskRuntime.shared()
        let flat = try image.flattened()
        let (width, height) = (flat.width, flat.height)
        guard width >= 8, height >= 8 else { throw .productNotFound(detail: "\(width)×\(height) is too small to find a product in") }
        let rgb = try flat.withSRGBBytes(alpha: false) { Array($0) }
        let (mask, groundKept) = try rgb.withUnsafeBufferPointer { pixels throws(ImagePipelineError) in
            try runtime.mask(model: model, rgb: pixels, width: width, height: height)
        }
        let (white, cut) = try Self.onWhite(rgb: rgb, mask: mask, width: width, height: height)
        try Self.check(cut, groundKept: groundKept)
        let composite = try flat.replacingPixels(white, width: width, height: height)
        return try Self.framed(composite, box: (Int(cut.x0), Int(cut.y0), Int(cut.x1 - cut.x0), Int(cut.y1 - cut.y0)), fill: background.fill)
    }

    /// `rgb` (3 bytes a pixel) with what `mask` calls ground made white, and what the mask says about
    /// itself (`mi_white_background`).
    static func onWhite(rgb: [UInt8], mask: [UInt8], width: Int, height: Int) throws(ImagePipelineError) -> (pixels: [UInt8], cut: mi_cutout_t) {
        var white = [UInt8](repeating: 255, count: rgb.count)
        var cut = mi_cutout_t()
        guard mi_white_background(rgb, mask, Int32(width), Int32(height), &white, &cut) == 0 else {
            throw .processingFailed(detail: "the product could not be put on white (out of memory)")
        }
        return (white, cut)
    }

    /// The photo named when the mask is not one to cut by; `groundKept`, the share of the product
    /// that it encloses and that has the ground's colours but was kept (`MaskRuntime.mask`: regions of
    /// 1% of the product or more, so any is sizeable).
    static func check(_ cut: mi_cutout_t, groundKept: Double = 0) throws(ImagePipelineError) {
        let percent = { (share: Double) in "\(Int((share * 100).rounded()))%" }
        if cut.product < leastProduct || cut.x1 <= cut.x0 {
            throw .productNotFound(detail: "the model found no product in it (\(percent(cut.product)) of the frame)")
        }
        if cut.product > mostProduct {
            throw .productNotFound(detail: "the model found no background around the product (\(percent(cut.product)) of the frame is product)")
        }
        if cut.unsure > mostUnsure {
            throw .productNotFound(detail: "the model could not tell the product from its ground (\(percent(cut.unsure)) of its mask unsure: "
                + "glass, or a white product on white?)")
        }
        if cut.doubtful > mostDoubtful {
            throw .productNotFound(detail: "part of the product may be cut away or its ground kept (the model was unsure over "
                + "\(percent(cut.doubtful)) of it, inside its outline: a part the colour of its ground?)")
        }
        if groundKept > 0 {
            throw .productNotFound(detail: "the ground may show through the product (\(percent(groundKept)) of it, enclosed by it, "
                + "has the ground's colours: a handle's hole?)")
        }
    }

    /// `image` cut to the product's `box`, scaled so the box's longer side is `fill` of a square
    /// canvas of the image's long edge, centred on white.
    static func framed(_ image: DecodedImage, box: (x: Int, y: Int, width: Int, height: Int), fill: Double) throws(ImagePipelineError) -> DecodedImage {
        let side = image.longEdge
        let product = try image.cropped(x: box.x, y: box.y, width: box.width, height: box.height)
        // Resampling lightens the outermost pixels a little: 2 px more keeps the share measured on the
        // result (`PhotoFrame`) at `fill` or above, so a listing's own `--fill` passes its rule.
        let long = min(Double(side), (fill * Double(side)).rounded(.up) + 2)
        let scale = long / Double(max(box.width, box.height))
        let target = (width: max(1, Int((Double(box.width) * scale).rounded())), height: max(1, Int((Double(box.height) * scale).rounded())))
        let scaled = target == (box.width, box.height) ? product
            : try product.scaled(horizontally: Double(target.width) / Double(box.width), vertically: Double(target.height) / Double(box.height))
        // A Lanczos resize can land a pixel off the target; the canvas holds whatever it made.
        let canvas = max(side, scaled.width, scaled.height)
        return try scaled.embedded(x: (canvas - scaled.width) / 2, y: (canvas - scaled.height) / 2, width: canvas, height: canvas, colour: [255, 255, 255])
    }
}

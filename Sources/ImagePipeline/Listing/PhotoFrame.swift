import CKernels
import Foundation

/// How a prepared photo sits in its frame, measured once when it is prepared with a listing: the
/// measures marketplaces write their main-image rules in (`Marketplace`), without a model. The
/// product is what is darker than white (`MI_FRAME_PRODUCT`), so its box means something only when
/// the edges are white: on a table or a sheet the whole frame is "product", and the background rule
/// is what names the photo.
public struct PhotoFrame: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int
    /// Share of the frame's edge band (the outer 2% of the short side) that is white, every channel
    /// at 250 or more.
    public var whiteEdge: Double
    /// Share of that band at exactly RGB 255: what Amazon and Coupang call pure white.
    public var pureWhiteEdge: Double
    /// The product's bounding box (x, y, width, height) in the frame's pixels; nil when nothing is
    /// darker than white.
    public var product: [Int]?
    /// A uniform band added around all four sides, in pixels (0: none), and its colour (`#rrggbb`).
    public var border: Int
    public var borderColour: String?

    /// Edges at least this white let the product's box be read from what is darker than them.
    public static let readableEdge = 0.5

    /// Measures `image` (upright sRGB; transparency counts as white, as it is uploaded); nil for an
    /// image under 8 px on a side, too small to judge (and already named by `PhotoShape`).
    public init?(_ image: DecodedImage) throws(ImagePipelineError) {
        guard image.width >= 8, image.height >= 8 else { return nil }
        var frame = mi_photo_frame_t()
        try image.measure("the photo's frame") { mi_photo_frame($0, $1, $2, &frame) }
        (width, height) = (image.width, image.height)
        whiteEdge = (frame.white_edge * 1000).rounded() / 1000
        pureWhiteEdge = (frame.pure_white_edge * 1000).rounded() / 1000
        product = frame.x1 > frame.x0 ? [Int(frame.x0), Int(frame.y0), Int(frame.x1 - frame.x0), Int(frame.y1 - frame.y0)] : nil
        border = Int(frame.border)
        let rgb = frame.border_rgb
        borderColour = border > 0 ? String(format: "#%02x%02x%02x", rgb.0, rgb.1, rgb.2) : nil
    }

    /// How much of the frame the product fills: its box's longer side against the frame's side it
    /// lies along (Amazon's "85% of the frame"); nil when the edges are not white enough to tell the
    /// product from its background.
    public var productShare: Double? {
        guard whiteEdge >= Self.readableEdge, let product else { return nil }
        return max(Double(product[2]) / Double(width), Double(product[3]) / Double(height))
    }

    /// How far the product's centre is from the frame's, as a share of the frame's side (the larger
    /// of the two axes); nil as for `productShare`.
    public var productOffCentre: Double? {
        guard whiteEdge >= Self.readableEdge, let product else { return nil }
        let dx = abs(Double(product[0]) + Double(product[2]) / 2 - Double(width) / 2) / Double(width)
        let dy = abs(Double(product[1]) + Double(product[3]) / 2 - Double(height) / 2) / Double(height)
        return max(dx, dy)
    }
}

import CKernels
import CVips
import Foundation

/// What a prepared photo looks like to a buyer, measured once when it is prepared: how sharp, how
/// exposed, and a hash for telling near-duplicates. `problems` turns the measures into what a seller
/// can fix by reshooting, by the thresholds in `Thresholds`, each measured on the corpus
/// (README, "Photo problems").
public struct PhotoLook: Sendable, Codable, Equatable {
    /// The blur of its sharpest edges, as a Gaussian's sigma in pixels at `workingEdge`.
    public var blurWidth: Double
    /// How strong its strongest edges are (levels per pixel); too weak to judge sharpness below
    /// `Thresholds.minEdgeStrength`.
    public var edgeStrength: Double
    /// How strong its strongest few edges are (levels per pixel, the top 0.05% of the gradient): a
    /// product's outline counts even on a plain background with little texture, where
    /// `edgeStrength` is low. Under `Thresholds.detailStrength` nothing in the photo is sharp.
    public var detailStrength: Double
    /// Luminance (0–255) of the darkest 1%, the median and the brightest 1%.
    public var shadows: Int
    public var median: Int
    public var highlights: Int
    /// Share of pixels whose highlights are clipped into a tint (overexposure; a white background
    /// is not counted).
    public var clippedHighlights: Double
    /// 64-bit difference hash, hex.
    public var hash: String

    /// The long edge the blur is expressed at: about what a phone's detail page shows. Larger photos
    /// are measured after a box shrink by a whole factor that keeps them at least this large.
    public static let workingEdge = 1024

    /// The one table of when a measure becomes a problem.
    public enum Thresholds {
        /// Blurrier than a Gaussian of this sigma (pixels at `workingEdge`) is blurry.
        public static let blurWidth = 0.75
        /// Edges weaker than this say nothing about how wide edges are (a plain gradient, a blank wall).
        public static let minEdgeStrength = 3.0
        /// Strongest edges weaker than this are no sharp detail at all: a heavy blur, a blank frame.
        /// The width of edges says nothing there, so this is what catches the worst blurs.
        public static let detailStrength = 5.0
        /// A brightest 1% darker than this is a dark photo.
        public static let highlights = 160
        /// More highlights clipped into a tint than this share is blown out.
        public static let clippedHighlights = 0.045
        /// Hashes this close (differing bits) are the same picture.
        public static let nearDuplicateBits = 8
    }

    /// Measures `image` (upright sRGB; transparency counts as white, as it is uploaded); nil for an
    /// image under 3 px on a side, too small to judge (and already named by `PhotoShape`).
    public init?(_ image: DecodedImage) throws(ImagePipelineError) {
        guard image.width >= 3, image.height >= 3 else { return nil }
        var look = mi_photo_look_t()
        try image.measure("the photo's look") { mi_photo_look($0, $1, $2, Int32(Self.workingEdge), &look) }
        blurWidth = (look.blur_width * 100).rounded() / 100
        edgeStrength = (look.edge_strength * 100).rounded() / 100
        detailStrength = (look.detail_strength * 100).rounded() / 100
        (shadows, median, highlights) = (Int(look.shadows), Int(look.median), Int(look.highlights))
        clippedHighlights = (look.tinted_clipping * 1000).rounded() / 1000
        hash = String(format: "%016llx", look.hash)
    }

    /// What a seller should hear about, each a sentence.
    public var problems: [String] {
        var problems: [String] = []
        if detailStrength < Thresholds.detailStrength {
            problems.append("has no sharp detail (its strongest edges reach \(String(format: "%.1f", detailStrength)) levels a pixel at \(Self.workingEdge) px; "
                + "a sharp photo's reach \(String(format: "%g", Thresholds.detailStrength))): reshoot it in focus, the product filling the frame")
        } else if edgeStrength >= Thresholds.minEdgeStrength, blurWidth >= Thresholds.blurWidth {
            problems.append("looks blurry (its sharpest edges are \(String(format: "%.1f", blurWidth)) px wide at \(Self.workingEdge) px; "
                + "a sharp photo's are under \(Thresholds.blurWidth)): reshoot it steady and in focus")
        }
        if highlights < Thresholds.highlights {
            problems.append("looks too dark (its brightest parts reach \(highlights) of 255): reshoot it in more light")
        }
        if clippedHighlights > Thresholds.clippedHighlights {
            problems.append("looks blown out (\(Int((clippedHighlights * 100).rounded()))% of it is highlights clipped to a tint): "
                + "reshoot it with less light or exposure")
        }
        return problems
    }

    /// Whether `other` is the same picture: a copy re-encoded, resized or lightly edited.
    public func resembles(_ other: PhotoLook) -> Bool {
        guard let mine = UInt64(hash, radix: 16), let theirs = UInt64(other.hash, radix: 16) else { return false }
        return (mine ^ theirs).nonzeroBitCount <= Thresholds.nearDuplicateBits
    }
}

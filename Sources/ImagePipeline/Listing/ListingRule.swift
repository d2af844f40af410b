import Foundation

/// One photo rule of one marketplace, with where it was read, checked against a `PhotoFrame` and
/// named with the measure ("background 62% white, Amazon wants pure white"), as the photo looks are.
public struct ListingRule: Sendable, Hashable {
    public enum Measure: Sendable, Hashable {
        /// At least this many pixels on the long side.
        case longSide(Int)
        /// At least this share of the frame's edges white: pure white (RGB 255) or, when not `pure`,
        /// within 5 levels of it.
        case whiteBackground(share: Double, pure: Bool)
        /// The product's box fills at least this share of the frame (its longer side against the
        /// frame's).
        case productShare(Double)
        /// The product's centre within this share of the frame's side from the frame's centre.
        case centred(Double)
        /// Square, within this share (1000×1000 and the like).
        case square(Double)
        /// No uniform border added around the photo.
        case noBorder
    }

    public var measure: Measure
    /// Whether the marketplace only recommends it ("recommends"), or requires it ("wants").
    public var recommended: Bool
    /// Where the rule was read, and when: an address, or what a secondary summary is.
    public var source: String

    public init(_ measure: Measure, recommended: Bool = false, source: String) {
        (self.measure, self.recommended, self.source) = (measure, recommended, source)
    }

    /// The rule in a few words, for `--help` and the README's table (checked against it).
    public var summary: String {
        let rule = switch measure {
        case .longSide(let pixels): "long side ≥ \(pixels) px"
        case .whiteBackground(let share, let pure): "edges ≥ \(Int((share * 100).rounded()))% \(pure ? "pure white (RGB 255)" : "white (≥ 250)")"
        case .productShare(let least): "product ≥ \(Int((least * 100).rounded()))% of the frame"
        case .centred(let tolerance): "product centred (within \(Int((tolerance * 100).rounded()))%)"
        case .square: "square"
        case .noBorder: "no added border"
        }
        return rule + (recommended ? " (recommended)" : "")
    }

    /// What is wrong with `frame` for `market`, in a sentence; nil when it passes or cannot be told
    /// (a product's box on edges that are not white).
    public func problem(_ frame: PhotoFrame, market: String) -> String? {
        let wants = "\(market) \(recommended ? "recommends" : "wants")"
        func percent(_ share: Double) -> String { "\(Int((share * 100).rounded(.down)))%" }
        switch measure {
        case .longSide(let pixels):
            let long = max(frame.width, frame.height)
            return long >= pixels ? nil : "long side \(long) px, \(wants) \(pixels) px or more"
        case .whiteBackground(let share, let pure):
            let white = pure ? frame.pureWhiteEdge : frame.whiteEdge
            guard white < share else { return nil }
            let near = pure && frame.whiteEdge >= share ? " (\(percent(frame.whiteEdge)) near-white: make it 255)" : ""
            return "background \(percent(white)) \(pure ? "pure " : "")white at the edges\(near), \(wants) \(pure ? "pure white (RGB 255)" : "white")"
        case .productShare(let least):
            guard let share = frame.productShare, share < least else { return nil }
            return "product fills \(percent(share)) of the frame, \(wants) \(percent(least)) or more"
        case .centred(let tolerance):
            guard let offset = frame.productOffCentre, offset > tolerance else { return nil }
            return "product \(percent(offset)) off centre, \(wants) it centred"
        case .square(let tolerance):
            let ratio = Double(max(frame.width, frame.height)) / Double(max(1, min(frame.width, frame.height)))
            return ratio - 1 <= tolerance ? nil : "\(frame.width)×\(frame.height) is not square, \(wants) square (1000×1000)"
        case .noBorder:
            guard frame.border > 0 else { return nil }
            return "a \(frame.border) px border of \(frame.borderColour ?? "one colour") around it, \(market) \(recommended ? "recommends none" : "allows none")"
        }
    }
}

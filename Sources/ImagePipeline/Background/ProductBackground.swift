/// `--background white` with its framing: the product cut out by the segmentation model, put on
/// pure white, and centred in a square canvas with its bounding box's longer side `fill` of the
/// canvas's side (`--fill`, by default the listing's: 0.85 for Amazon's "85% of the frame").
public struct ProductBackground: Sendable, Hashable, Codable {
    /// Of the canvas's side, the product's bounding box's longer side.
    public var fill: Double
    /// The model file (`--model`); nil looks in `BackgroundModel.defaultPlaces`.
    public var model: String?

    public init(fill: Double = 0.85, model: String? = nil) {
        (self.fill, self.model) = (fill, model)
    }

    /// A product smaller than half the frame is not "filling" it; a whole frame leaves no margin at all.
    public static let fillRange = 0.5...1.0
}

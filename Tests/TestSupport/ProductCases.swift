import Foundation

/// Product photos with known masks (Tests/Fixtures/products/make.py, drawn with Pillow): products
/// composited onto textured grounds cut from the fixtures' real photos, each with its truth, and two
/// made for the model to struggle with (a white mug on white, a clear glass).
public enum ProductCases {
    /// The cases on textured grounds, as make.py names them.
    public static let textured = ["mug-on-wood", "bottle-on-cloth", "box-on-garden", "shoe-on-wood", "mug-on-street", "shoe-on-cloth"]
    /// The cases made hard: white on white, glass.
    public static let hard = ["white-mug-on-white", "glass-on-cloth"]

    /// Makes the cases `names` (every one when empty) into `folder`: `NAME.png` and its truth
    /// `NAME.truth.png` (255 the product).
    public static func make(_ names: [String] = [], into folder: String) throws {
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", Fixture.path("products/make.py"), Fixture.root.path, folder] + names)
    }
}

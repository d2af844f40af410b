/// One photo found in the inputs, with where its outputs go.
public struct SourcePhoto: Sendable, Equatable, Codable {
    /// Absolute path of the source file.
    public var path: String
    /// The product it belongs to: the output subfolder, or "" for photos given one by one.
    public var product: String
    /// Output file name without extension: the source's stem, made unique within the product.
    public var outputStem: String

    /// Output path relative to the output folder, for a given extension.
    public func outputPath(extension ext: String) -> String {
        (product.isEmpty ? "" : product + "/") + outputStem + "." + ext
    }
}

/// A product: the photos that become one listing, in the order they will be uploaded.
public struct ProductPhotos: Sendable, Equatable {
    public var name: String
    /// The folder the photos came from (nil for photos given one by one).
    public var folder: String?
    public var photos: [SourcePhoto]
}

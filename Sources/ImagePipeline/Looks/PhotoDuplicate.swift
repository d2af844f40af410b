import Foundation

/// A photo that repeats an earlier one: the same prepared bytes under another name (a copy), or
/// the same picture by its look hash (a near-duplicate: re-encoded, resized, lightly edited), within
/// its product or, for near-duplicates, in a product before it. Found by `PhotoDuplicates`, one way
/// for `prepare`, `publish` and `preview`; each words it as its own sentence (`sentence(naming:)`).
public struct PhotoDuplicate: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case copy, nearDuplicate = "near-duplicate"
    }

    /// The source of the photo that repeats, and of the earlier photo it repeats.
    public var source: String
    public var original: String
    public var kind: Kind
    /// The product `original` belongs to, when it is another product's.
    public var otherProduct: String?

    public init(source: String, original: String, kind: Kind, otherProduct: String? = nil) {
        (self.source, self.original, self.kind, self.otherProduct) = (source, original, kind, otherProduct)
    }

    /// What a seller reads, this photo named `name` and the original by its file name (its
    /// product's name before it when it is another product's): `IMG_2.jpg is the same photo as IMG_1.jpg`.
    public func sentence(naming name: String) -> String {
        let original = (otherProduct.map { $0 + "/" } ?? "") + (self.original as NSString).lastPathComponent
        return switch (kind, otherProduct) {
        case (.copy, _): "\(name) is the same photo as \(original)"
        case (.nearDuplicate, nil): "\(name) looks like \(original) (a near-duplicate); is a different view meant?"
        case (.nearDuplicate, _): "\(name) looks like \(original) (a near-duplicate of another product's photo)"
        }
    }
}

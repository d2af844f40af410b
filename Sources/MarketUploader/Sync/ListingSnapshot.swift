import Foundation

/// What one request put on the server for a product: its fields and a fingerprint of each image in
/// upload order. Recorded when the server accepts a request, it is what the next sync compares the
/// product folder with, so only what changed is sent.
public struct ListingSnapshot: Sendable, Equatable, Codable {
    public var fields: ProductDraft
    /// Any stable digest of each uploaded image's bytes and name; compared, never interpreted.
    public var images: [String]

    public init(fields: ProductDraft, images: [String]) {
        self.fields = fields
        self.images = images
    }
}

/// One field that differs between what was sent and what the folder holds now, named by its
/// `product.json` key, with both values as text.
public struct FieldChange: Sendable, Equatable, Codable {
    public var field: String
    public var from: String
    public var to: String

    public init(field: String, from: String, to: String) {
        self.field = field
        self.from = from
        self.to = to
    }
}

extension ProductChange {
    /// The fields of `new` that differ from `old`, and nothing else. A discount that was removed is
    /// sent as 0: the servers treat 0 as "no discount" and a PATCH has no way to unset a field.
    public init(from old: ProductDraft, to new: ProductDraft) {
        self.init()
        if old.name != new.name { name = new.name }
        if old.description != new.description { description = new.description }
        if old.price != new.price { price = new.price }
        if old.currency != new.currency { currency = new.currency }
        if old.stock != new.stock { stock = new.stock }
        if (old.discountedPrice ?? 0) != (new.discountedPrice ?? 0) { discountedPrice = new.discountedPrice ?? 0 }
    }
}

extension ProductDraft {
    /// Every field that differs from `self` to `new`, for showing a plan.
    public func changes(to new: ProductDraft) -> [FieldChange] {
        let number = NumberText.format
        let pairs: [(String, String, String)] = [
            ("name", name, new.name),
            ("description", description, new.description),
            ("price", number(price), number(new.price)),
            ("currency", currency.rawValue, new.currency.rawValue),
            ("stock", String(stock), String(new.stock)),
            ("discounted_price", discountedPrice.map(number) ?? "none", new.discountedPrice.map(number) ?? "none"),
        ]
        return pairs.filter { $0.1 != $0.2 && !($0.0 == "discounted_price" && (discountedPrice ?? 0) == (new.discountedPrice ?? 0)) }
            .map { FieldChange(field: $0.0, from: $0.1, to: $0.2) }
    }
}

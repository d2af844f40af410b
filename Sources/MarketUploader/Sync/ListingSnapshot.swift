import Foundation

/// What one request put on the server for a product: its fields and a fingerprint of each image in
/// upload order. Recorded when the server accepts a request, it is what the next sync compares the
/// product folder with, so only what changed is sent.
public struct ListingSnapshot: Sendable, Equatable, Codable {
    public var fields: ProductDraft
    /// Any stable digest of each uploaded image's bytes and name; compared, never interpreted.
    public var images: [String]
    /// Recorded before the sale price existed, when the seller's `discounted_price` went to the server
    /// as written: what buyers pay is unknown, so the next sync sends the price and sale again.
    public var pricesUnknown = false

    public init(fields: ProductDraft, images: [String]) {
        self.fields = fields
        self.images = images
    }

    private enum CodingKeys: String, CodingKey { case fields, images, pricesUnknown }
    private enum LegacyFieldKeys: String, CodingKey { case discountedPrice = "discounted_price" }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = try container.decode(ProductDraft.self, forKey: .fields)
        images = try container.decode([String].self, forKey: .images)
        let legacy = try container.nestedContainer(keyedBy: LegacyFieldKeys.self, forKey: .fields)
        pricesUnknown = try container.decodeIfPresent(Bool.self, forKey: .pricesUnknown) ?? legacy.contains(.discountedPrice)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields, forKey: .fields)
        try container.encode(images, forKey: .images)
        if pricesUnknown { try container.encode(true, forKey: .pricesUnknown) }
    }

    /// Every field that differs from what this snapshot sent to `new`, for showing a plan; prices in
    /// their currency, as every screen shows them.
    public func changes(to new: ProductDraft) -> [FieldChange] {
        let sale = { (draft: ProductDraft) in SalePrice.effective(price: draft.price, salePrice: draft.salePrice).map(draft.currency.format) ?? "none" }
        let pairs: [(String, String, String)] = [
            ("name", fields.name, new.name),
            ("description", fields.description, new.description),
            ("price", fields.currency.format(fields.price), new.currency.format(new.price)),
            ("currency", fields.currency.rawValue, new.currency.rawValue),
            ("stock", String(fields.stock), String(new.stock)),
            ("sale_price", pricesUnknown ? "unknown" : sale(fields), sale(new)),
        ]
        return pairs.filter { $0.1 != $0.2 }.map { FieldChange(field: $0.0, from: $0.1, to: $0.2) }
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
    /// The fields of `new` that differ from what `sent` put on the server, and nothing else. During a
    /// sale the price and the sale price go together when either changed: G2/G3 are sent the amount
    /// off, which depends on both. An ended sale is sent as the price itself (no discount: 0 off).
    public init(from sent: ListingSnapshot, to new: ProductDraft) {
        self.init()
        let old = sent.fields
        if old.name != new.name { name = new.name }
        if old.description != new.description { description = new.description }
        if old.currency != new.currency { currency = new.currency }
        if old.stock != new.stock { stock = new.stock }
        let oldSale = SalePrice.effective(price: old.price, salePrice: old.salePrice)
        let newSale = SalePrice.effective(price: new.price, salePrice: new.salePrice)
        if old.price != new.price { price = new.price }
        if oldSale != newSale || sent.pricesUnknown || (newSale != nil && price != nil) {
            price = new.price
            salePrice = newSale ?? new.price
        }
    }
}

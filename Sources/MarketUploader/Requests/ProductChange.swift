import Foundation

/// Changes to an existing product; nil fields are left as they are.
public struct ProductChange: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var price: Double?
    public var currency: Currency?
    public var stock: Int?
    /// What a buyer pays; equal to the price to end a sale. On G2/G3 it goes with `price`, since
    /// those servers are sent the amount off.
    public var salePrice: Double?
    /// G2/G3: the id of one of the product's images to use as its thumbnail.
    public var thumbnailID: Int?

    public init(name: String? = nil, description: String? = nil, price: Double? = nil, currency: Currency? = nil,
                stock: Int? = nil, salePrice: Double? = nil, thumbnailID: Int? = nil) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.stock = stock
        self.salePrice = salePrice
        self.thumbnailID = thumbnailID
    }

    /// Every field of a draft, as a change: what register sends.
    init(_ draft: ProductDraft) {
        self.init(name: draft.name, description: draft.description, price: draft.price, currency: draft.currency,
                  stock: draft.stock, salePrice: draft.salePrice)
    }

    public var isEmpty: Bool {
        name == nil && description == nil && price == nil && currency == nil && stock == nil
            && salePrice == nil && thumbnailID == nil
    }

    public func problems(for dialect: Dialect) -> [String] {
        var problems = FieldRules(name: name, description: description, price: price, currency: currency, stock: stock,
                                  salePrice: salePrice).problems(for: dialect)
        if salePrice != nil, price == nil, dialect != .items {
            problems.append("the \(dialect.rawValue) server is sent a sale as the amount off the price: give the price with the sale price")
        }
        if thumbnailID != nil && dialect == .items { problems.append("the items (G1) server has no thumbnail_id") }
        return problems
    }
}

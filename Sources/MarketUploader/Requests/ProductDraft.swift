import Foundation

/// A product to register: every field the server requires, checked before anything is sent.
public struct ProductDraft: Sendable, Equatable, Codable {
    public var name: String
    public var description: String
    public var price: Double
    public var currency: Currency
    public var stock: Int
    /// What a buyer pays, when less than the price; nil for no sale. Never the server's
    /// `discounted_price`: each dialect's request converts it (see `SalePrice`).
    public var salePrice: Double?

    /// `stock` has no default: 0 lists the product as sold out, and anything else is a guess (the
    /// README's example once listed its mug sold out).
    public init(name: String, description: String, price: Double, currency: Currency = .KRW, stock: Int,
                salePrice: Double? = nil) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.stock = stock
        self.salePrice = salePrice
    }

    enum CodingKeys: String, CodingKey {
        case name, description, price, currency, stock
        case salePrice = "sale_price"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decode(String.self, forKey: .description)
        price = try container.decode(Double.self, forKey: .price)
        currency = try container.decodeIfPresent(Currency.self, forKey: .currency) ?? .KRW
        stock = try container.decode(Int.self, forKey: .stock)
        salePrice = try container.decodeIfPresent(Double.self, forKey: .salePrice)
    }

    /// Every rule the draft breaks for `dialect`, each a sentence.
    public func problems(for dialect: Dialect) -> [String] {
        var problems = FieldRules(name: name, description: description, price: price, currency: currency, stock: stock,
                                  salePrice: salePrice).problems(for: dialect)
        if dialect == .items && name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append("name must not be empty")
        }
        return problems
    }

    /// What is allowed but worth a second look before listing: a sale deeper than half the price.
    public var warnings: [String] {
        SalePrice.warning(price: price, salePrice: salePrice, currency: currency).map { [$0] } ?? []
    }
}

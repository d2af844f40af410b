import Foundation

public enum Currency: String, Sendable, Codable, CaseIterable {
    case KRW
    case USD
}

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

    public init(name: String, description: String, price: Double, currency: Currency = .KRW, stock: Int = 0,
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
        stock = try container.decodeIfPresent(Int.self, forKey: .stock) ?? 0
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

/// The field rules shared by register and edit. Lengths are the G2/G3 server's (G1 checks none).
private struct FieldRules {
    var name: String?
    var description: String?
    var price: Double?
    var currency: Currency?
    var stock: Int?
    var salePrice: Double?

    func problems(for dialect: Dialect) -> [String] {
        var problems: [String] = []
        if dialect != .items {
            if let name, !(3...100).contains(name.count) {
                problems.append("name must be 3–100 characters (it has \(name.count))")
            }
            if let description, !(10...1000).contains(description.count) {
                problems.append("description must be 10–1000 characters (it has \(description.count))")
            }
        }
        if let price, !(price >= 0 && price.isFinite) { problems.append("price must be 0 or more") }
        // The won has no minor unit: 12000.5 KRW is a typo, not a price.
        if currency == .KRW {
            for (field, value) in [("price", price), ("sale price", salePrice)] {
                if let value, value.isFinite, value.rounded() != value {
                    problems.append("\(field) \(Self.format(value)) KRW must be a whole number of won")
                }
            }
        }
        if let stock, stock < 0 { problems.append("stock must be 0 or more") }
        if let salePrice {
            if !(salePrice >= 0 && salePrice.isFinite) { problems.append("sale price must be 0 or more") }
            if let price, salePrice > price {
                problems.append("sale price (\(Self.format(salePrice))) must not exceed the price (\(Self.format(price)))")
            }
        }
        return problems
    }

    static func format(_ value: Double) -> String { NumberText.format(value) }
}

/// Numbers as the servers expect them in text: `1200`, not `1200.0`.
public enum NumberText {
    /// 287412 → "287,412", whatever the machine's locale.
    public static func grouped(_ number: Int64) -> String {
        var text = String(number.magnitude)
        for index in stride(from: text.count - 3, to: 0, by: -3) { text.insert(",", at: text.index(text.startIndex, offsetBy: index)) }
        return (number < 0 ? "-" : "") + text
    }

    public static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// "1 photo", "3 photos".
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

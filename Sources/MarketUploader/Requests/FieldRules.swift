import Foundation

/// The field rules shared by register and edit. Lengths are the G2/G3 server's (G1 checks none).
struct FieldRules {
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

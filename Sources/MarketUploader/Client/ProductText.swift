import Foundation

/// A server's product in the words a seller reads it: prices in its currency, with the original
/// struck out in words when discounted, and "sold out" for no stock. `show` and `list` print these,
/// so what a buyer pays reads the same from the plan to the server's answer.
public enum ProductText {
    /// What a buyer pays, as `dialect`'s server means its fields (see `SalePrice`).
    public static func price(of product: ProductResponse, dialect: Dialect) -> String {
        guard let price = product.price else { return "-" }
        let sale = dialect.salePrice(of: product)
        if let currency = product.currency.flatMap({ Currency(rawValue: $0.uppercased()) }) {
            return SalePrice.text(price: price, salePrice: sale, currency: currency)
        }
        return sale.map { "\(amount($0, of: product)) (was \(amount(price, of: product)))" } ?? amount(price, of: product)
    }

    /// An amount in `product`'s currency: "₩10,800", or "10800 XYZ" in a currency not known here.
    static func amount(_ amount: Double, of product: ProductResponse) -> String {
        if let currency = product.currency.flatMap({ Currency(rawValue: $0.uppercased()) }) { return currency.format(amount) }
        return "\(NumberText.format(amount)) \(product.currency ?? "")"
    }

    public static func stock(of product: ProductResponse) -> String {
        guard let stock = product.stock else { return "-" }
        return stock == 0 ? "sold out" : String(stock)
    }
}

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
        let text = { (amount: Double) in "\(NumberText.format(amount)) \(product.currency ?? "")" }
        return sale.map { "\(text($0)) (was \(text(price)))" } ?? text(price)
    }

    public static func stock(of product: ProductResponse) -> String {
        guard let stock = product.stock else { return "-" }
        return stock == 0 ? "sold out" : String(stock)
    }
}

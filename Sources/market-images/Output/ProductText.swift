import Foundation
import MarketUploader

/// A server's product in the words a seller reads it: prices in its currency, with the original
/// struck out in words when discounted, and "sold out" for no stock.
enum ProductText {
    static func price(of product: ProductResponse) -> String {
        guard let price = product.price else { return "-" }
        let currency = product.currency.flatMap { Currency(rawValue: $0.uppercased()) }
        let text = { (amount: Double) in currency?.format(amount) ?? "\(NumberText.format(amount)) \(product.currency ?? "")" }
        // G2/G3 send the price after the discount; G1's discounted price is that price.
        let sale = [product.bargainPrice, product.discountedPrice].lazy.compactMap { $0 }.first { $0 > 0 && $0 < price }
        guard let sale else { return text(price) }
        return "\(text(sale)) (was \(text(price)))"
    }

    static func stock(of product: ProductResponse) -> String {
        guard let stock = product.stock else { return "-" }
        return stock == 0 ? "sold out" : String(stock)
    }
}

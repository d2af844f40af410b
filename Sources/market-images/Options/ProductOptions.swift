import ArgumentParser
import Foundation
import MarketUploader
import Publishing

/// Product fields from flags, over a folder's `product.json` (keys: name, description, price,
/// currency, stock, sale_price).
struct ProductOptions: ParsableArguments {
    @Option(help: "Product name (G2/G3: 3–100 characters).")
    var name: String?

    @Option(help: "Description (G2/G3: 10–1000 characters).")
    var description: String?

    @Option(help: "Price, 0 or more.")
    var price: Double?

    @Option(help: "KRW (the default) or USD; any case.")
    var currency: Currency?

    @Option(help: "Units in stock; required for a new product (0 lists it as sold out).")
    var stock: Int?

    @Option(help: ArgumentHelp("What a buyer pays, below the price for a sale (each server is sent what it means by its discounted_price).",
                               valueName: "amount"))
    var salePrice: Double?

    /// What `body` returns; missing fields are a usage error, worded with the flags that give them.
    static func usage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch PublishingError.missingFields(let missing, let file) {
            let flags = missing.map { "--\($0)" }.joined(separator: ", ")
            let setting = file.map { " or set \(missing.map { "\"\($0)\"" }.joined(separator: ", ")) in " + Terminal.display($0) } ?? ""
            throw ValidationError("a product needs \(missing.joined(separator: ", ")): give \(flags)\(setting)")
        }
    }

    var change: ProductChange {
        ProductChange(name: name, description: description, price: price, currency: currency, stock: stock, salePrice: salePrice)
    }
}

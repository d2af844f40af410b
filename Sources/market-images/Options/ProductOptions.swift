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

    /// A draft for register: `product.json` in `folder` (if any) with flags taking precedence.
    func draft(folder: String?) throws -> ProductDraft {
        try Self.draft(folder: folder, overrides: change)
    }

    static func draft(folder: String?, overrides: ProductChange) throws -> ProductDraft {
        try usage { () throws(PublishingError) in try ProductFile.draft(folder: folder, overrides: overrides) }
    }

    static func draft(file: ProductChange?, folder: String?, overrides: ProductChange) throws -> ProductDraft {
        try usage { () throws(PublishingError) in try ProductFile.draft(file: file, folder: folder, overrides: overrides) }
    }

    /// Missing fields are a usage error, worded with the flags that give them.
    private static func usage(_ draft: () throws(PublishingError) -> ProductDraft) throws -> ProductDraft {
        do {
            return try draft()
        } catch .missingFields(let missing, let file) {
            let flags = missing.map { "--\($0)" }.joined(separator: ", ")
            let setting = file.map { " or set \(missing.map { "\"\($0)\"" }.joined(separator: ", ")) in " + Terminal.display($0) } ?? ""
            throw ValidationError("a product needs \(missing.joined(separator: ", ")): give \(flags)\(setting)")
        } catch {
            throw CommandFailure(error.message)
        }
    }

    var change: ProductChange {
        ProductChange(name: name, description: description, price: price, currency: currency, stock: stock, salePrice: salePrice)
    }
}

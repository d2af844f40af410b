import ArgumentParser
import Foundation
import MarketUploader

/// Product fields from flags, over a folder's `product.json` (keys: name, description, price,
/// currency, stock, discounted_price).
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

    @Option(help: "Discounted price, at most the price.")
    var discountedPrice: Double?

    /// A draft for register: `product.json` in `folder` (if any) with flags taking precedence.
    func draft(folder: String?) throws -> ProductDraft {
        try Self.draft(folder: folder, overrides: change)
    }

    static func draft(folder: String?, overrides: ProductChange) throws -> ProductDraft {
        try draft(file: try folder.flatMap(ProductFile.fields(in:)), folder: folder, overrides: overrides)
    }

    /// The same, for a `product.json` already read.
    static func draft(file: ProductChange?, folder: String?, overrides: ProductChange) throws -> ProductDraft {
        let name = overrides.name ?? file?.name, description = overrides.description ?? file?.description
        let price = overrides.price ?? file?.price, stock = overrides.stock ?? file?.stock
        let missing = [("name", name == nil), ("description", description == nil), ("price", price == nil), ("stock", stock == nil)]
            .filter(\.1).map(\.0)
        guard let name, let description, let price, let stock else {
            // Stock has no default: 0 would list the product as sold out, anything else is a guess.
            let flags = missing.map { "--\($0)" }.joined(separator: ", ")
            let file = folder.map { " or set \(missing.map { "\"\($0)\"" }.joined(separator: ", ")) in "
                + Terminal.display(($0 as NSString).appendingPathComponent(ProductFile.fileName)) } ?? ""
            throw ValidationError("a product needs \(missing.joined(separator: ", ")): give \(flags)\(file)")
        }
        return ProductDraft(name: name, description: description, price: price,
                            currency: overrides.currency ?? file?.currency ?? .KRW, stock: stock,
                            discountedPrice: overrides.discountedPrice ?? file?.discountedPrice)
    }

    var change: ProductChange {
        ProductChange(name: name, description: description, price: price, currency: currency, stock: stock, discountedPrice: discountedPrice)
    }
}

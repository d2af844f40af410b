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

    @Option(help: "KRW or USD.")
    var currency: Currency?

    @Option(help: "Units in stock.")
    var stock: Int?

    @Option(help: "Discounted price, at most the price.")
    var discountedPrice: Double?

    /// A draft for register: `product.json` in `folder` (if any) with flags taking precedence.
    func draft(folder: String?) throws -> ProductDraft {
        try Self.draft(folder: folder, overrides: change)
    }

    static func draft(folder: String?, overrides: ProductChange) throws -> ProductDraft {
        var base: ProductDraft?
        if let folder {
            let file = URL(fileURLWithPath: folder).appendingPathComponent("product.json")
            if FileManager.default.fileExists(atPath: file.path) {
                do {
                    base = try JSONDecoder().decode(ProductDraft.self, from: Data(contentsOf: file))
                } catch {
                    throw CommandFailure("\(Terminal.display(file.path)) is not a valid product: \(Self.reason(error))")
                }
            }
        }
        guard let name = overrides.name ?? base?.name, let description = overrides.description ?? base?.description,
              let price = overrides.price ?? base?.price else {
            throw ValidationError("a product needs --name, --description and --price (or a product.json with them in the folder)")
        }
        return ProductDraft(name: name, description: description, price: price,
                            currency: overrides.currency ?? base?.currency ?? .KRW, stock: overrides.stock ?? base?.stock ?? 0,
                            discountedPrice: overrides.discountedPrice ?? base?.discountedPrice)
    }

    var change: ProductChange {
        ProductChange(name: name, description: description, price: price, currency: currency, stock: stock, discountedPrice: discountedPrice)
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: error.localizedDescription
        }
    }
}

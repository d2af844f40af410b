import ArgumentParser
import Foundation
import MarketUploader

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one product with its image URLs.",
        discussion: """
        EXAMPLES:
          market-images show 1234
          market-images show 77 --server https://camp-open-market-2.herokuapp.com --json
        """
    )

    @Argument(help: "The product id.")
    var id: Int

    @OptionGroup var address: ServerAddress

    func run() async throws {
        let product: ProductResponse
        do {
            product = try await address.client().product(id: id)
        } catch let error as OpenMarketError {
            Terminal.standardError.error(error.message)
            throw ExitCode.failure
        }
        try address.warnOfPrices(product)
        if address.json { return try printJSON(product) }
        var lines = [
            "product \(product.id): \(Terminal.display(product.name))",
            "price: \(ProductText.price(of: product, dialect: try address.resolvedDialect))",
            "stock: \(ProductText.stock(of: product))",
        ]
        if let vendor = product.vendorID { lines.append("vendor id: \(vendor)") }
        if let created = product.createdAt { lines.append("created: \(ISO8601DateFormatter().string(from: created))") }
        if let description = product.description { lines.append("description: \(Terminal.display(description))") }
        if let thumbnail = product.thumbnail { lines.append("thumbnail: \(thumbnail)") }
        lines.append("images (\(product.images.count)):")
        lines += product.images.map { image in "  " + (image.id.map { "\($0): " } ?? "") + image.url }
        Terminal.standardOutput.write(lines.joined(separator: "\n") + "\n")
    }
}

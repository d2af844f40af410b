import ArgumentParser
import Foundation
import MarketUploader

struct ListProducts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show a page of the server's products.",
        discussion: """
        Newest first, as the server lists them. The openmarket server searches by name itself; on the \
        others --search keeps the page's products whose name contains the text. --mine keeps your \
        products: those of --vendor-id (or $OPENMARKET_VENDOR_ID; `show` prints a product's vendor id). \
        The items server has no vendors, and its pages hold 20 products.

        EXAMPLES:
          market-images list
          market-images list --search mug --per-page 50
          market-images list --mine --vendor-id 7 --json
        """
    )

    @Option(help: "Page number, from 1.")
    var page = 1

    @Option(help: "Products per page (not on the items server).")
    var perPage = 20

    @Option(help: "Only products whose name contains this text.")
    var search: String?

    @Flag(help: "Only your products (needs --vendor-id).")
    var mine = false

    @Option(help: "Your vendor id, for --mine; default: $OPENMARKET_VENDOR_ID.")
    var vendorID: Int?

    @OptionGroup var address: ServerAddress

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page must be 1 or more") }
        guard (1...500).contains(perPage) else { throw ValidationError("--per-page must be 1–500") }
        if mine {
            guard try address.resolvedDialect != .items else {
                throw ValidationError("--mine: the items server has no vendors; any product is whoever's has its password")
            }
            guard ownVendorID != nil else {
                throw ValidationError("--mine needs your vendor id: --vendor-id N or $OPENMARKET_VENDOR_ID (`market-images show ID` prints a product's)")
            }
        }
    }

    private var ownVendorID: Int? {
        vendorID ?? ProcessInfo.processInfo.environment["OPENMARKET_VENDOR_ID"].flatMap { Int($0) }
    }

    /// The page as `--json` prints it.
    struct Listing: Encodable {
        var page: Int
        var hasNext: Bool
        var totalCount: Int?
        var products: [ProductResponse]
        var problems: [String]
    }

    func run() async throws {
        let result: ProductPage
        do {
            result = try await ProductQuery(page: page, itemsPerPage: perPage, search: search, vendorID: mine ? ownVendorID : nil)
                .fetch(from: try address.client())
        } catch let error as OpenMarketError {
            Terminal.standardError.error(error.message)
            throw ExitCode.failure
        }
        if address.json {
            try printJSON(Listing(page: result.pageNumber, hasNext: result.hasNext, totalCount: result.totalCount, products: result.products,
                                  problems: result.problems))
        } else {
            try printTable(result)
        }
        // A bad item is named, the rest shown, and the exit status says some input was bad.
        for problem in result.problems { Terminal.standardError.warning(ServerText.printable(problem)) }
        for product in result.products { try address.warnOfPrices(product) }
        if !result.problems.isEmpty { throw ExitCode.failure }
    }

    private func printTable(_ result: ProductPage) throws {
        let dialect = try address.resolvedDialect
        let rows = [["ID", "NAME", "PRICE", "STOCK", "IMAGES"]] + result.products.map { product in
            [String(product.id), Terminal.display(product.name), ProductText.price(of: product, dialect: dialect), ProductText.stock(of: product),
             String(product.images.count)]
        }
        for line in TextTable.lines(rows) { Terminal.standardOutput.write(line + "\n") }
        let more = result.hasNext ? "; more on --page \(page + 1)" : ""
        Terminal.standardOutput.write("page \(result.pageNumber): \(count(result.products.count, "product"))\(more)\n")
    }
}

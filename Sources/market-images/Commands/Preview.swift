import ArgumentParser
import Foundation
import ImagePipeline
import Hummingbird
import Logging
import MarketUploader
import ProductPreview
import Publishing
import ThumbnailService

struct Preview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "See the products as the app will show them, in a browser, before publishing.",
        discussion: """
        Prepares what is missing (incrementally, into the cache publish uses), starts a small web \
        server on loopback and prints its address; open it in a browser. The address carries a token \
        made for this run: without it (another user of the machine, a page from elsewhere) the \
        preview answers 403. The page shows the products \
        as the OpenMarket apps list them (rows of 80-point thumbnails, or a two-column grid of 200), \
        with prices, discounts and stock; each product's page shows every prepared photo at full \
        size with its bytes against the limit, its quality and encodes, a comparison with the original \
        at the same scale, the warnings and failed photos, and, when publish has a record for --server \
        (by default the one server in the record), what publish would change. Reload after changing a \
        photo or product.json to see it. Ctrl-C stops it.

        EXAMPLES:
          market-images preview Samples
          market-images preview products/ --bind 127.0.0.1:8800
          market-images preview products/ --server https://openmarket.yagom-academy.kr
        """
    )

    @Argument(help: "A folder of product folders.")
    var products: String

    @Option(help: "Loopback address and port to listen on (port 0: any free port).")
    var bind = "127.0.0.1:0"

    @Option(help: "The server whose publish record to compare with (default: the only one recorded).")
    var server: String?

    @Option(help: "That server's dialect, when its host name does not tell (decides whether photos can change).")
    var dialect: Dialect?

    @OptionGroup var photos: UploadPhotos

    func validate() throws {
        guard FileManager.default.isDirectory(products) else { throw ValidationError("\(Terminal.display(products)) is not a folder") }
        guard try address().isLoopback else {
            throw ValidationError("--bind: the preview serves unsigned image URLs, so it listens on loopback only (127.0.0.1, ::1)")
        }
        if let server, URL(string: server)?.host == nil { throw ValidationError("--server must be an http(s) URL") }
    }

    func run() async throws {
        let address = try address()
        var configuration = PreviewConfiguration(productsFolder: products, photoCache: photos.photoCache, server: publishServer(), dialect: dialect)
        configuration.describe = errorText
        // Each page compares with what the server holds, as publish plans; a dialect is needed to read it.
        if let server = configuration.server, let dialect = configuration.dialect { configuration.client = OpenMarketClient(baseURL: server, dialect: dialect) }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "market-images")
        logger.logLevel = .info
        let preview = try ProductPreview(configuration, bind: address, logger: logger)
        guard !preview.productFolders.isEmpty else { throw ValidationError("\(Terminal.display(products)) has no product folders with photos") }
        let prepared = preview.prepareAll()
        let router = Router(context: ServiceRequestContext.self)
        let access = PreviewAccess<ServiceRequestContext>(bind: address, logger: logger)
        preview.addRoutes(to: router, access: access)
        let summary = count(prepared.products, "product") + (prepared.failedPhotos > 0 ? ", \(count(prepared.failedPhotos, "photo")) failed" : "")
        try await preview.run(router: router) { url in
            Terminal.standardOutput.write("Preview of \(summary): \(access.address(url))\n")
            Terminal.standardError.write("listening on \(url)\n")
        }
    }

    private func address() throws -> ServiceAddress {
        guard let address = ServiceAddress(bind) else { throw ValidationError("--bind takes HOST:PORT, e.g. 127.0.0.1:8080; got \(Terminal.display(bind))") }
        return address
    }

    /// `--server`, or the one server the publish record knows (a warning names several).
    private func publishServer() -> URL? {
        if let server { return URL(string: server) }
        let record = RecordedServer(productsFolder: products)
        if record.recorded.count > 1 {
            Terminal.standardError.warning("the publish record has \(record.recorded.count) servers (\(record.recorded.joined(separator: ", "))): "
                + "pass --server with one of them to see what publish would change there")
        }
        return record.server
    }
}

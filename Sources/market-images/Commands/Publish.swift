import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register every product folder that is not registered yet.",
        discussion: """
        Each subfolder of PRODUCTS with photos is one product; its product.json gives the fields. The \
        product id the server returns is recorded in PRODUCTS/.openmarket-published.json, and a rerun \
        skips folders already registered on that server, so running publish again — after adding \
        folders, or after a crash — never lists a product twice.

        A folder whose request was sent but never answered (a crash, a dropped connection, a timeout) is \
        left "pending": the server may have listed it. Check the server, then pass --resend-pending to \
        register those folders again.

        EXAMPLES:
          market-images publish products/
          market-images publish products/ --dry-run
          market-images publish products/ --resend-pending
        """
    )

    @Argument(help: "A folder of product folders.")
    var products: String

    @Flag(help: "Send again the folders a previous run left pending (after checking the server).")
    var resendPending = false

    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        let credentials = try connection.credentials
        let client = try connection.client()
        let server = try connection.baseURL
        let folders = ProductScanner().scan([products]).products.compactMap(\.folder).filter { $0 != URL(fileURLWithPath: products).standardizedFileURL.path }
        guard !folders.isEmpty else { throw ValidationError("\(products) has no product folders with photos") }
        var ledger = try PublishLedger.load(from: products)
        var failed = 0
        for folder in folders {
            let key = PublishLedger.key(server: server, folder: folder)
            let name = Terminal.display(folder)
            switch ledger.entries[key] {
            case let entry? where entry.state == .registered:
                Terminal.standardError.write("\(name): already registered as product \(entry.productID.map(String.init) ?? "?")\n")
                continue
            case let entry? where entry.state == .pending && !resendPending:
                Terminal.standardError.error("\(name): a request sent at \(entry.at) was never answered, so the server may have listed it; check, then rerun with --resend-pending")
                failed += 1
                continue
            default:
                break
            }
            do {
                let draft = try ProductOptions.draft(folder: folder, overrides: ProductChange())
                let images = try photos.prepare([folder])
                let request = try client.requests.register(draft, images: images, credentials: credentials)
                if connection.dryRun {
                    Terminal.standardOutput.write(request.rendered(credentials: credentials, showSecrets: connection.showSecrets) + "\n\n")
                    continue
                }
                ledger.entries[key] = .init(state: .pending, productID: nil, at: Date())
                try ledger.save(to: products)
                do {
                    let product = try await client.register(draft, images: images, credentials: credentials)
                    ledger.entries[key] = .init(state: .registered, productID: product.id, at: Date())
                    Terminal.standardOutput.write("\(name): registered product \(product.id)\n")
                } catch {
                    if !Self.mayHaveBeenListed(error) { ledger.entries[key] = nil }
                    throw error
                }
                try ledger.save(to: products)
            } catch {
                Terminal.standardError.error("\(name): \(errorText(error))")
                try ledger.save(to: products)
                failed += 1
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Whether the server may have created the product despite the error: only an answer that
    /// refused the request, or a failure before it was sent, proves it did not.
    static func mayHaveBeenListed(_ error: OpenMarketError) -> Bool {
        switch error {
        case .invalid, .unsupported, .unauthorized, .notFound, .payloadTooLarge, .rejected: false
        case .transport(_, let reached): reached
        case .serverError, .timedOut, .invalidResponse: true
        }
    }
}

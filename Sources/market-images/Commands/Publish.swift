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

    /// One folder's outcome, for `--json`.
    struct Outcome: Encodable {
        enum State: String, Encodable { case registered, alreadyRegistered = "already-registered", pending, failed, dryRun = "dry-run" }
        var folder: String
        var state: State
        var productID: Int?
        var error: String?
    }

    func run() async throws {
        let credentials = try connection.credentials
        let client = try connection.client()
        let server = try connection.baseURL
        let folders = ProductScanner().scan([products]).products.compactMap(\.folder).filter { $0 != URL(fileURLWithPath: products).standardizedFileURL.path }
        guard !folders.isEmpty else { throw ValidationError("\(products) has no product folders with photos") }
        var ledger = try PublishLedger.load(from: products)
        let stdout = Terminal.standardOutput, stderr = Terminal.standardError
        var outcomes: [Outcome] = []
        func report(_ outcome: Outcome, _ text: String) {
            outcomes.append(outcome)
            if outcome.error != nil { stderr.error(text) } else if !connection.json { stdout.write(text + "\n") }
        }
        for folder in folders {
            let key = PublishLedger.key(server: server, folder: folder)
            let name = Terminal.display(folder)
            switch ledger.entries[key] {
            case let entry? where entry.state == .registered:
                report(Outcome(folder: folder, state: .alreadyRegistered, productID: entry.productID),
                       "\(name): already registered as product \(entry.productID.map(String.init) ?? "?")")
                continue
            case let entry? where entry.state == .pending && !resendPending:
                let message = "a request sent at \(entry.at) was never answered, so the server may have listed it; check, then rerun with --resend-pending"
                report(Outcome(folder: folder, state: .pending, error: message), "\(name): \(message)")
                continue
            default:
                break
            }
            do {
                let draft = try ProductOptions.draft(folder: folder, overrides: ProductChange())
                let images = try photos.prepare([folder])
                let request = try client.requests.register(draft, images: images, credentials: credentials)
                if connection.dryRun {
                    // A dry run sends nothing and writes nothing, the ledger included.
                    report(Outcome(folder: folder, state: .dryRun), request.rendered(credentials: credentials, showSecrets: connection.showSecrets) + "\n")
                    continue
                }
                ledger.entries[key] = .init(state: .pending, productID: nil, at: Date())
                try ledger.save(to: products)
                let product: ProductResponse
                do {
                    product = try await client.register(draft, images: images, credentials: credentials)
                } catch {
                    guard Self.mayHaveBeenListed(error) else {
                        ledger.entries[key] = nil
                        try ledger.save(to: products)
                        throw error
                    }
                    let message = "\(error.description); the server may have listed it anyway, so it is pending: check the server, then rerun with --resend-pending"
                    report(Outcome(folder: folder, state: .pending, error: message), "\(name): \(message)")
                    continue
                }
                ledger.entries[key] = .init(state: .registered, productID: product.id, at: Date())
                try ledger.save(to: products)
                report(Outcome(folder: folder, state: .registered, productID: product.id), "\(name): registered product \(product.id)")
            } catch {
                report(Outcome(folder: folder, state: .failed, error: errorText(error)), "\(name): \(errorText(error))")
            }
        }
        if connection.json { try printJSON(outcomes) }
        if outcomes.contains(where: { $0.error != nil }) { throw ExitCode.failure }
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

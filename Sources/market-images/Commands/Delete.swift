import ArgumentParser
import Foundation
import MarketUploader
import Publishing

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete products from the server.",
        discussion: """
        The items server takes the product's password; the market-training server first exchanges the \
        vendor secret for the product's own secret, and the openmarket server for a deletion URI, then \
        deletes with that (the vendor secret never goes into a URL). Asks first on a terminal; scripts \
        pass --yes. --dry-run prints the requests, secrets redacted, with a stand-in for what the \
        server's first answer would be. With --products, the deleted listings (and any already gone) \
        are forgotten in that folder's publish record, so publish registers their folders again.

        EXAMPLES:
          market-images delete 1234
          market-images delete 1234 1235 --yes
          market-images delete 1234 --products products/
          market-images delete 77 --dry-run \\
              --server https://camp-open-market-2.herokuapp.com
        """
    )

    @Argument(help: "Product ids.")
    var ids: [Int]

    @Flag(help: "Delete without asking (for scripts).")
    var yes = false

    @OptionGroup var record: PublishRecordOption

    @OptionGroup var connection: ServerOptions

    func run() async throws {
        let client = try connection.client()
        let credentials = try connection.credentials
        if connection.dryRun {
            for id in ids {
                do {
                    let requests = try client.requests.deletionPreview(id: id, credentials: credentials)
                    Terminal.standardOutput.write(requests.map { $0.rendered(credentials: credentials, showSecrets: connection.showSecrets) }
                        .joined(separator: "\n\n") + "\n")
                } catch {
                    Terminal.standardError.error(error.message)
                    throw ExitCode.failure
                }
            }
            return
        }
        if !yes {
            let question = "Delete \(count(ids.count, "product")) (\(ids.map(String.init).joined(separator: ", "))) from \(try connection.baseURL.absoluteString)?"
            switch Confirmation.ask(question) {
            case true?: break
            case false?: throw ExitCode.failure
            case nil: throw ValidationError("delete asks before deleting, and there is no terminal to ask on: pass --yes")
            }
        }
        let deletion = ListingDeletion(client: client, credentials: credentials, productsFolder: record.products)
        var outcomes: [Outcome] = []
        for id in ids {
            let outcome = try await deletion.delete(id)
            if let error = outcome.error {
                outcomes.append(Outcome(id: id, deleted: false, error: error.message))
                Terminal.standardError.error("product \(id): \(error.message)")
            } else {
                outcomes.append(Outcome(id: id, deleted: true))
                if !connection.json { Terminal.standardOutput.write("deleted product \(id)\n") }
            }
            if !outcome.forgotten.isEmpty, !connection.json {
                Terminal.standardOutput.write("forgot product \(id) in the publish record (\(outcome.forgotten.map(Terminal.display).joined(separator: ", "))): "
                    + "publish registers it again\n")
            }
        }
        if connection.json { try printJSON(outcomes) }
        if outcomes.contains(where: { !$0.deleted }) { throw ExitCode.failure }
    }

    struct Outcome: Encodable {
        var id: Int
        var deleted: Bool
        var error: String?
    }
}

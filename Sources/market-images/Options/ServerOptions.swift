import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader
import Publishing

extension Dialect: ExpressibleByArgument {}
extension Currency: ExpressibleByArgument {
    /// `krw` and `KRW` alike.
    public init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}

/// Which server to talk to: all that a command reading the catalogue needs.
struct ServerAddress: ParsableArguments {
    @Option(help: "Server base URL (default: the dialect's public server).")
    var server: String?

    @Option(help: "items (G1), market-training (G2) or openmarket (G3); default: from --server's host name (other hosts need it), openmarket without --server.")
    var dialect: Dialect?

    @Option(help: "Seconds for each exchange with the server, from sending the request to the last byte of its answer.")
    var timeout: Double = 30

    @Flag(help: "Print the result as JSON.")
    var json = false

    var resolvedDialect: Dialect {
        get throws {
            if let dialect { return dialect }
            guard let server else { return .openmarket }
            guard let url = URL(string: server), let inferred = Dialect.inferred(from: url) else {
                throw ValidationError("cannot tell the dialect of \(server) from its host name; pass --dialect items|market-training|openmarket")
            }
            return inferred
        }
    }

    /// A warning on stderr when the server's price fields disagree with each other (a stale
    /// `bargain_price`): `show`, `list`, `register` and `edit` say it.
    func warnOfPrices(_ product: ProductResponse) throws {
        if let disagreement = try resolvedDialect.priceDisagreement(of: product) {
            Terminal.standardError.warning("product \(product.id): " + disagreement)
        }
    }

    var baseURL: URL {
        get throws {
            guard let server else { return try resolvedDialect.defaultBaseURL }
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil else {
                throw ValidationError("--server must be an http(s) URL, e.g. https://openmarket.yagom-academy.kr")
            }
            return url
        }
    }

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        _ = try baseURL
    }

    func client() throws -> OpenMarketClient {
        var client = OpenMarketClient(baseURL: try baseURL, dialect: try resolvedDialect)
        client.timeout = timeout
        return client
    }
}

/// Where to send requests and as whom, shared by every command that writes to a server.
struct ServerOptions: ParsableArguments {
    @OptionGroup var address: ServerAddress

    @Option(help: "Vendor identifier (G2/G3); default: $OPENMARKET_IDENTIFIER.")
    var identifier: String?

    @Option(help: "Vendor secret (G2/G3); default: $OPENMARKET_SECRET. Other users can see a flag in the process list: prefer the variable or --secret-file.")
    var secret: String?

    @Option(help: "A file holding the vendor secret (mode 600).")
    var secretFile: String?

    @Option(help: "The product's password (G1); default: $OPENMARKET_PASSWORD. Prefer the variable or --password-file.")
    var password: String?

    @Option(help: "A file holding the product's password (mode 600).")
    var passwordFile: String?

    @Flag(help: "Send nothing: register, edit, attach and delete print the exact HTTP requests (secrets redacted), publish its plan.")
    var dryRun = false

    @Flag(help: "Show secrets in --dry-run output.")
    var showSecrets = false

    var json: Bool { address.json }
    var baseURL: URL { get throws { try address.baseURL } }
    var resolvedDialect: Dialect { get throws { try address.resolvedDialect } }
    func client() throws -> OpenMarketClient { try address.client() }

    /// Flags first, then files, then the environment; never echoed anywhere. A dry run without them
    /// shows placeholders, so examples work before a seller has an account.
    var credentials: Credentials {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            func fromFile(_ path: String?, _ option: String) throws -> String? {
                guard let path else { return nil }
                do { return try SecretFile.read(path, option: option, display: Terminal.display).trimmingCharacters(in: .newlines) } catch {
                    throw ValidationError(error.description)
                }
            }
            if try resolvedDialect == .items {
                if let password = try password ?? fromFile(passwordFile, "--password-file") ?? environment["OPENMARKET_PASSWORD"], !password.isEmpty {
                    return .password(Secret(password))
                }
                guard dryRun else {
                    throw ValidationError("the items server needs the product's password: $OPENMARKET_PASSWORD, --password-file or --password")
                }
                return .password(Secret("<password>"))
            }
            let identifier = identifier ?? environment["OPENMARKET_IDENTIFIER"] ?? ""
            let secret = try secret ?? fromFile(secretFile, "--secret-file") ?? environment["OPENMARKET_SECRET"] ?? ""
            if !identifier.isEmpty, !secret.isEmpty { return .vendor(identifier: identifier, secret: Secret(secret)) }
            guard dryRun else {
                throw ValidationError("this server needs a vendor identifier and secret: $OPENMARKET_IDENTIFIER and $OPENMARKET_SECRET (or --identifier and --secret-file)")
            }
            return .vendor(identifier: identifier.isEmpty ? "<identifier>" : identifier, secret: Secret(secret.isEmpty ? "<secret>" : secret))
        }
    }

    func validate() throws {
        _ = try credentials
        for (flag, given, variable) in [("--secret", secret != nil, "OPENMARKET_SECRET"), ("--password", password != nil, "OPENMARKET_PASSWORD")] where given {
            Terminal.standardError.warning("\(flag) on the command line can be read by every user of this machine (ps, /proc); "
                + "set $\(variable) or use \(flag)-file instead")
        }
    }

    /// Sends `submission`, or prints its request when this is a dry run. Prints the product on success.
    func perform(_ submission: ProductSubmission, summary: (ProductResponse) -> String) async throws {
        if dryRun {
            Terminal.standardOutput.write(submission.request.rendered(credentials: try credentials, showSecrets: showSecrets) + "\n")
            return
        }
        let product: ProductResponse
        do {
            product = try await submission.send()
        } catch {
            Terminal.standardError.error(errorText(error))
            throw ExitCode.failure
        }
        if json { try printJSON(product) } else { Terminal.standardOutput.write(summary(product) + "\n") }
        try address.warnOfPrices(product)
    }

}

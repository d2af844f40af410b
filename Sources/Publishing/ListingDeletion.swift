import Foundation
import MarketUploader

/// Deletes listings from a server and, given the products folder `publish` keeps its record in,
/// forgets there each listing deleted or already gone: the next publish registers its folder again
/// instead of calling a listing that no longer exists unchanged.
public struct ListingDeletion: Sendable {
    public let client: OpenMarketClient
    public let credentials: Credentials
    /// The products folder whose publish record forgets the listings deleted; nil for none.
    public let productsFolder: String?

    public init(client: OpenMarketClient, credentials: Credentials, productsFolder: String? = nil) {
        (self.client, self.credentials, self.productsFolder) = (client, credentials, productsFolder)
    }

    public struct Outcome: Sendable {
        public var id: Int
        /// Why the listing was not deleted; nil when it was.
        public var error: OpenMarketError?
        /// The product folders the record forgot it for.
        public var forgotten: [String] = []
    }

    /// Deletes listing `id`. One the server does not have (404) is forgotten too: the record must
    /// not say otherwise. Throws only when the record cannot be read or written.
    public func delete(_ id: Int) async throws -> Outcome {
        var outcome = Outcome(id: id)
        do {
            try await client.delete(id: id, credentials: credentials)
        } catch {
            outcome.error = error
            guard case .notFound = error else { return outcome }
        }
        guard let productsFolder else { return outcome }
        var ledger = try PublishLedger.load(from: productsFolder)
        outcome.forgotten = ledger.forget(productID: id, on: client.requests.baseURL)
        if !outcome.forgotten.isEmpty { try ledger.save(to: productsFolder) }
        return outcome
    }
}

import Foundation
import MarketUploader

extension PublishLedger {
    /// Registers `snapshot` (with `images`) as product folder `folder`'s listing on `server`, the one
    /// way every command registers a folder, so `register FOLDER` and `publish` keep one record: the
    /// entry is saved as pending before the request leaves and as registered once the server answers.
    /// A refusal restores the entry there was; an unanswered request stays pending, for the next
    /// publish to look up (`PublishingError.mayHaveBeenListed`).
    public mutating func register(_ folder: String, on server: URL, _ snapshot: ListingSnapshot, images: [UploadImage], replacing: Int? = nil,
                                  client: OpenMarketClient, credentials: Credentials, savingTo productsFolder: String) async throws -> ProductResponse {
        let key = Self.key(server: server, folder: folder)
        let previous = entries[key], known = knownIDs(on: server)
        try set(key, .init(state: .pending, at: Date(), sent: snapshot, replaces: replacing), savingTo: productsFolder)
        let product: ProductResponse
        do {
            product = try await client.register(snapshot.fields, images: images, credentials: credentials)
        } catch {
            guard error.mayHaveBeenActedOn else {
                try set(key, previous, savingTo: productsFolder)
                throw error
            }
            throw PublishingError.mayHaveBeenListed(error)
        }
        // Two folders recorded as one listing would make each "unchanged" for ever after.
        guard !known.contains(product.id) else {
            throw PublishingError.mayHaveBeenListed(.invalidResponse("the server answered product id \(product.id), which is already recorded for another listing"))
        }
        try set(key, .init(state: .registered, productID: product.id, at: Date(), sent: snapshot, vendorID: product.vendorID, replaces: replacing),
                savingTo: productsFolder)
        return product
    }

    /// Sets one entry (nil forgets it) and saves the record before anything else is sent.
    mutating func set(_ key: String, _ entry: Entry?, savingTo productsFolder: String) throws {
        entries[key] = entry
        try save(to: productsFolder)
    }
}

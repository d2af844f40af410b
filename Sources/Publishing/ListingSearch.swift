import Foundation
import ImagePipeline
import MarketUploader

/// Looks for a new folder's product among the server's listings before it is registered: one listed
/// by another tool, the app, or a publish whose record was lost would otherwise be listed twice.
/// A listing is the folder's when its name, price and photos are the folder's, the photos told by
/// their bytes' fingerprints (each read once, only for a listing whose name and price match);
/// anything less is named for the seller to decide, never guessed.
struct ListingSearch: Sendable {
    let client: OpenMarketClient
    /// Ids recorded for other folders: never candidates.
    let excluded: Set<Int>
    let vendorID: Int?
    /// The listings read so far, by what was asked for: G3 searches by name, the others are read once.
    private var read: [String: [ProductResponse]] = [:]

    init(client: OpenMarketClient, excluded: Set<Int>, vendorID: Int?) {
        (self.client, self.excluded, self.vendorID) = (client, excluded, vendorID)
    }

    enum Found: Sendable {
        /// Exactly one listing holds the folder's name, price and photos.
        case same(ProductResponse)
        /// Listings with the name and price whose photos are not the folder's, or more than one that are.
        case possible([ProductResponse])
        /// Listings with the name only.
        case named([ProductResponse])
        case nothing
    }

    /// What the server lists like `snapshot`.
    mutating func find(_ snapshot: ListingSnapshot) async throws(OpenMarketError) -> Found {
        let name = snapshot.fields.name, query = client.requests.dialect == .openmarket ? name : ""
        if read[query] == nil { read[query] = try await client.listings(named: name).products }
        var seen = Set<Int>()
        let named = (read[query] ?? []).filter { listing in
            seen.insert(listing.id).inserted && !excluded.contains(listing.id) && listing.name == name
                && (vendorID == nil || listing.vendorID == nil || listing.vendorID == vendorID)
        }
        let matcher = ListingMatcher(sent: snapshot, dialect: client.requests.dialect, sentAt: Date())
        let priced = named.filter { matcher.differences($0).allSatisfy { !["price", "sale_price", "currency"].contains($0.field) } }
        var same: [ProductResponse] = []
        for listing in priced { if let whole = await holding(snapshot, listing) { same.append(whole) } }
        if same.count == 1 { return .same(same[0]) }
        if !priced.isEmpty { return .possible(priced) }
        return named.isEmpty ? .nothing : .named(named)
    }

    /// `listed` as the server holds it, when its images are the bytes of the folder's prepared photos.
    /// A list page may show no images or description (the real servers' pages carry a thumbnail
    /// only), so the product is read whole then. An image that cannot be read (another host, gone)
    /// makes it no match.
    private func holding(_ snapshot: ListingSnapshot, _ listed: ProductResponse) async -> ProductResponse? {
        guard let listing = listed.images.isEmpty || listed.description == nil ? try? await client.product(id: listed.id) : listed else { return nil }
        return await Self.holds(snapshot, listing, client: client) ? listing : nil
    }

    /// Whether `listing`'s images are the bytes of `snapshot`'s photos, each read once from the server.
    static func holds(_ snapshot: ListingSnapshot, _ listing: ProductResponse, client: OpenMarketClient) async -> Bool {
        guard listing.images.count == snapshot.images.count else { return false }
        var fingerprints: [String] = []
        for image in listing.images {
            guard let url = URL(string: image.url), let data = try? await client.image(at: url) else { return false }
            fingerprints.append(Fingerprint.hex(data))
        }
        return fingerprints.sorted() == FolderRename.photos(snapshot)
    }
}

import Foundation
import MarketUploader

/// What a server holds for the recorded products, read once before a plan: the plan compares each
/// folder with this, not with the record, because a listing changes behind the record's back (the
/// app's edit screen, a second device, `edit`, a deletion on the web).
///
/// The product list is read a page at a time, newest first, while it can still hold a recorded
/// product and a page costs less than reading the products it may hold one by one; what it did not
/// show is then read product by product, which also tells a deleted listing (404) from one that is
/// only not listed (a 404 is read twice, the servers' settling time apart). So the cost is at most
/// one request per recorded product (two for a deleted one), and one list request per page when
/// they are all recent (`cost`).
public struct ServerListings: Sendable {
    /// Each recorded product the server has, by id.
    public private(set) var listings: [Int: ProductResponse] = [:]
    /// Recorded products the server answered 404 for.
    public private(set) var gone: Set<Int> = []
    /// The list pages and single products read.
    public private(set) var pagesRead = 0, productsRead = 0

    /// Products per list page asked of G2/G3 (G1's pages have a size of the server's own).
    static let pageSize = 100

    /// Reads what the server behind `client` holds for `ids`.
    public static func read(_ ids: Set<Int>, from client: OpenMarketClient) async throws(PublishingError) -> ServerListings {
        var held = ServerListings()
        var missing = ids
        do {
            var page = 1
            // A page is worth reading while it costs less than reading what is still missing one by one.
            while let oldest = missing.min(), held.pagesRead < missing.count {
                let listed = try await client.products(page: page, itemsPerPage: pageSize)
                held.pagesRead += 1
                for product in listed.products where isWhole(product, client.requests.dialect) && missing.remove(product.id) != nil {
                    held.listings[product.id] = product
                }
                // Newest first: once a page reaches below the oldest missing id, later pages hold older ones.
                let ended = listed.products.isEmpty || (client.requests.dialect != .items && !listed.hasNext)
                if ended || listed.products.contains(where: { $0.id < oldest }) { break }
                page += 1
            }
            var notFound: [Int] = []
            for id in missing.sorted() where try await !held.read(id, from: client) { notFound.append(id) }
            // A listing another client has just edited answers 404 for a moment too: only a second
            // 404, after the servers' settling time, is a deletion.
            if !notFound.isEmpty { try? await Task.sleep(nanoseconds: UInt64(client.settleDelay * 1e9)) }
            for id in notFound where try await !held.read(id, from: client) { held.gone.insert(id) }
        } catch {
            throw .serverUnreadable(error)
        }
        return held
    }

    /// Whether a list page's `product` shows all a plan compares: the real servers' pages may leave
    /// out the description, and on items, whose photos another client can replace, the images. One
    /// that does not is read whole, as one not listed is.
    private static func isWhole(_ product: ProductResponse, _ dialect: Dialect) -> Bool {
        product.description != nil && (dialect != .items || !product.images.isEmpty)
    }

    /// Reads product `id` into `listings`; false when the server answers 404.
    private mutating func read(_ id: Int, from client: OpenMarketClient) async throws(OpenMarketError) -> Bool {
        productsRead += 1
        do {
            listings[id] = try await client.product(id: id)
            return true
        } catch .notFound {
            return false
        }
    }

    /// "2 list pages and 1 product (3 requests)": what reading the server cost.
    public var cost: String {
        let parts = [pagesRead > 0 ? NumberText.count(pagesRead, "list page") : nil, productsRead > 0 ? NumberText.count(productsRead, "product") : nil]
            .compactMap { $0 }
        // Folders not yet listed (new, or with a register pending) are looked for apart from this read.
        guard !parts.isEmpty else { return "no listing recorded for these folders, so none read" }
        return parts.joined(separator: " and ") + " (" + NumberText.count(pagesRead + productsRead, "request") + ")"
    }
}

import Foundation

/// A page of a server's products as a seller asks for it: by part of the name, any case, and only
/// one vendor's. The openmarket server searches by name itself; the others cannot, so their page is
/// filtered here, as the vendor is everywhere (the items server has no vendors: none of its products
/// is any vendor's).
public struct ProductQuery: Sendable {
    public var page: Int
    public var itemsPerPage: Int
    public var search: String?
    public var vendorID: Int?

    public init(page: Int = 1, itemsPerPage: Int = 20, search: String? = nil, vendorID: Int? = nil) {
        (self.page, self.itemsPerPage, self.search, self.vendorID) = (page, itemsPerPage, search, vendorID)
    }

    /// The page, holding only the products asked for; its problems are the whole page's.
    public func fetch(from client: OpenMarketClient) async throws(OpenMarketError) -> ProductPage {
        var result = try await client.products(page: page, itemsPerPage: itemsPerPage, search: search)
        result.products = result.products.filter { product in
            (search.map { product.name.localizedCaseInsensitiveContains($0) } ?? true) && (vendorID.map { product.vendorID == $0 } ?? true)
        }
        return result
    }
}

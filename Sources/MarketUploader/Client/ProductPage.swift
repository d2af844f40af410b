import Foundation

/// One page of a product list. G2 sends snake_case keys (`page_no`, `has_next`); G3's live server
/// sends its top-level keys in camelCase (`pageNo`, `hasNext`) while the products inside stay
/// snake_case. Both decode.
public struct ProductPage: Sendable, Equatable, Decodable {
    public var pageNumber: Int
    public var itemsPerPage: Int
    public var totalCount: Int?
    public var hasNext: Bool
    public var products: [ProductResponse]
    /// How far the server's clock was ahead of ours when it answered (from its `Date` header).
    public var serverClockOffset: TimeInterval?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func first<T: Decodable>(_ type: T.Type, _ names: String...) -> T? {
            names.lazy.compactMap { try? c.decode(T.self, forKey: Key($0)) }.first
        }
        pageNumber = first(Int.self, "page_no", "pageNo", "page") ?? 1
        itemsPerPage = first(Int.self, "items_per_page", "itemsPerPage") ?? 0
        totalCount = first(Int.self, "total_count", "totalCount")
        hasNext = first(Bool.self, "has_next", "hasNext") ?? false
        products = first([ProductResponse].self, "pages", "items") ?? []
    }
}

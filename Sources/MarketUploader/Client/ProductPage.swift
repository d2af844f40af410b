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
    /// What was wrong with the page's items, one line each: an item that is no product (left out,
    /// the rest kept) or a product whose text was not valid Unicode (kept, shown as sent: `\xFF`, `\uD800`).
    public var problems: [String] = []

    /// One item of the list: a product, or why it is none. Decoding it never fails, so one bad item
    /// cannot take the page's other products with it.
    private struct Item: Decodable {
        let product: Result<ProductResponse, DecodingError>

        init(from decoder: Decoder) {
            do {
                product = .success(try ProductResponse(from: decoder))
            } catch let error as DecodingError {
                product = .failure(error)
            } catch {
                product = .failure(.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)")))
            }
        }
    }

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
        products = []
        for (index, item) in (first([Item].self, "pages", "items") ?? []).enumerated() {
            switch item.product {
            case .success(let product):
                products.append(product)
                if !product.notUnicode.isEmpty {
                    problems.append("product \(product.id): its \(product.notUnicode.joined(separator: " and ")) held text that is not valid Unicode, shown as sent")
                }
            case .failure(let error):
                problems.append("item \(index + 1) of the page left out: " + Self.reason(error))
            }
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}

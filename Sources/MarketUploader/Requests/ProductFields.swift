import Foundation

/// A product's fields as one dialect names them, built once for register and edit alike: G1 sends
/// them as multipart text parts, G2/G3 as one JSON object. Numbers print as `1200`, not `1200.0`.
struct ProductFields {
    enum Value: Encodable {
        case text(String)
        case number(Double)

        var text: String {
            switch self {
            case .text(let value): value
            case .number(let value): NumberText.format(value)
            }
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            }
        }
    }

    private(set) var entries: [(key: String, value: Value)] = []

    /// The fields `change` sets, keyed for `dialect` (`title`/`descriptions` on G1, `name` and
    /// `descriptions`/`description` after; the sale price as each server's `discounted_price`).
    init(_ change: ProductChange, dialect: Dialect) {
        let items = dialect == .items
        add(items ? "title" : "name", change.name.map(Value.text))
        add(dialect.descriptionKey, change.description.map(Value.text))
        add("price", change.price.map(Value.number))
        add("currency", change.currency.map { .text($0.rawValue) })
        add("stock", change.stock.map { .number(Double($0)) })
        add("discounted_price", change.salePrice.flatMap { dialect.discountedPrice(price: change.price, salePrice: $0) }.map(Value.number))
        add("thumbnail_id", change.thumbnailID.map { .number(Double($0)) })
    }

    mutating func add(_ key: String, _ value: Value?) {
        if let value { entries.append((key, value)) }
    }

    var multipartParts: [MultipartFormData.Part] {
        entries.map { .text($0.key, $0.value.text) }
    }

    /// Compact JSON with keys sorted, so the same request always has the same bytes.
    var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let object = Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        // Strings and finite numbers always encode; the rules refuse non-finite prices first.
        return (try? encoder.encode(object)) ?? Data("{}".utf8)
    }
}

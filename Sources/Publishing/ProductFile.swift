import Foundation
import ImagePipeline
import MarketUploader

/// A product folder's `product.json`, read key by key. An unknown key (`sael_price`), a price
/// written as text or a currency spelled `krw` is named with the file and the key, instead of being
/// ignored or reported as a Swift decoding error; and a product's fields are settled here, from the
/// file and what the caller gives over it.
public enum ProductFile {
    public static let fileName = ProductScanner.productFileName
    public static let keys = ["name", "description", "price", "currency", "stock", "sale_price"]

    /// Why `discounted_price` is refused rather than read: the servers and sellers mean different
    /// things by it, and guessing lists a product at a tenth of its price.
    static func discountedPriceProblem(_ key: String) -> String {
        "\"\(key)\" is ambiguous: the market-training and openmarket servers read it as "
        + "the amount taken off the price, sellers usually mean what a buyer pays. Write \"sale_price\": what a buyer pays "
        + "(\"price\": 12000, \"sale_price\": 10800 lists it at ₩10,800, was ₩12,000)"
    }

    /// The largest `product.json` read: a product's fields are a few kilobytes, and a huge or endless
    /// file (sparse, a device, a FIFO) must not be read whole.
    public static let maxBytes = 1 << 20

    private enum Contents {
        case none, problem(String), data(Data)
    }

    /// The file's bytes, opened by us (a regular file only) and its size checked before reading.
    private static func contents(of path: String) -> Contents {
        do {
            let file = try OpenFile(path: path)
            guard file.size <= maxBytes else {
                return .problem("is \(NumberText.grouped(Int64(file.size))) bytes; a product.json is at most \(NumberText.grouped(Int64(maxBytes))) (its fields are a few kilobytes)")
            }
            return .data(try file.read())
        } catch .sourceUnreadable(let code) where code == ENOENT {
            return .none
        } catch {
            return .problem("\(error)")
        }
    }

    /// The fields the folder's `product.json` sets; nil when there is none.
    public static func fields(in folder: String) throws(PublishingError) -> ProductChange? {
        let read = self.read(in: folder)
        if let problem = read.problem { throw problem }
        return read.fields
    }

    /// The fields the file sets well, and what is wrong with the rest: `preview` shows both, so one
    /// bad key does not hide a good price.
    public static func read(in folder: String) -> (fields: ProductChange?, problem: PublishingError?) {
        let path = (folder as NSString).appendingPathComponent(fileName)
        let data: Data
        switch contents(of: path) {
        case .none: return (nil, nil)
        case .problem(let problem): return (nil, .productFile(path: path, problems: [problem]))
        case .data(let bytes): data = bytes
        }
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            return (nil, .productFile(path: path, problems: ["is not valid JSON: \(Self.position(of: error, in: data))"]))
        }
        guard parsed is [String: Any], let values = try? JSONDecoder().decode([String: Value].self, from: data) else {
            return (nil, .productFile(path: path, problems: ["must be one JSON object, like {\"name\": \"Ceramic mug\", \"price\": 12000, …}"]))
        }
        var problems: [String] = []
        var change = ProductChange()
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            do {
                switch key {
                case "name": change.name = try value.text(key)
                case "description": change.description = try value.text(key)
                case "price": change.price = try value.number(key)
                case "sale_price": change.salePrice = try value.number(key)
                case "discounted_price", "discountedPrice", "discount_price", "discount": throw Problem(discountedPriceProblem(key))
                case "stock": change.stock = try value.wholeNumber(key)
                case "currency":
                    let text = try value.text(key)
                    guard let currency = Currency(rawValue: text.uppercased()) else { throw Problem("\"currency\" must be KRW or USD, not \"\(text)\"") }
                    change.currency = currency
                default:
                    let guess = keys.min { distance(key, $0) < distance(key, $1) }.flatMap { distance(key, $0) <= 4 ? $0 : nil }
                    throw Problem("\"\(key)\" is not a product key" + (guess.map { "; did you mean \"\($0)\"?" } ?? "")
                                  + " (keys: \(keys.joined(separator: ", ")))")
                }
            } catch {
                problems.append((error as? Problem)?.text ?? "\(error)")
            }
        }
        return (change, problems.isEmpty ? nil : .productFile(path: path, problems: problems))
    }

    /// A product to register: the folder's `product.json` (if any) with `overrides` taking precedence.
    public static func draft(folder: String?, overrides: ProductChange) throws(PublishingError) -> ProductDraft {
        try draft(file: try folder.map { folder throws(PublishingError) in try fields(in: folder) } ?? nil, folder: folder, overrides: overrides)
    }

    /// The same, for a `product.json` already read.
    public static func draft(file: ProductChange?, folder: String?, overrides: ProductChange) throws(PublishingError) -> ProductDraft {
        let name = overrides.name ?? file?.name, description = overrides.description ?? file?.description
        let price = overrides.price ?? file?.price, stock = overrides.stock ?? file?.stock
        guard let name, let description, let price, let stock else {
            // Stock has no default: 0 would list the product as sold out, anything else is a guess.
            let missing = [("name", name == nil), ("description", description == nil), ("price", price == nil), ("stock", stock == nil)]
            throw .missingFields(missing.filter(\.1).map(\.0), productFile: folder.map { ($0 as NSString).appendingPathComponent(fileName) })
        }
        return ProductDraft(name: name, description: description, price: price,
                            currency: overrides.currency ?? file?.currency ?? .KRW, stock: stock,
                            salePrice: overrides.salePrice ?? file?.salePrice)
    }

    private struct Problem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// A JSON value of any kind, so each key's type can be checked and named.
    private enum Value: Decodable {
        case bool(Bool), number(Double), text(String), null, other

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .text(value) }
            else { self = .other }
        }

        func text(_ key: String) throws -> String {
            guard case .text(let value) = self else { throw Problem("\"\(key)\" must be text in quotes, not \(shown)") }
            return value
        }

        func number(_ key: String, example: Int = 12000) throws -> Double {
            guard case .number(let value) = self else { throw Problem("\"\(key)\" must be a number like \(example) (no quotes), not \(shown)") }
            return value
        }

        func wholeNumber(_ key: String) throws -> Int {
            let value = try number(key, example: 3)
            guard value.rounded() == value, let whole = Int(exactly: value) else { throw Problem("\"\(key)\" must be a whole number, not \(value)") }
            return whole
        }

        private var shown: String {
            switch self {
            case .bool(let value): "\(value)"
            case .number(let value): String(format: "%g", value)
            case .text(let value): "\"\(value)\""
            case .null: "null"
            case .other: "a list or an object"
            }
        }
    }

    /// "line 3, column 17" from Foundation's "around character 42", when it gives one.
    private static func position(of error: Error, in data: Data) -> String {
        let detail = (error as NSError).userInfo["NSDebugDescription"] as? String
            ?? ((error as? DecodingError).map { "\($0)" } ?? error.localizedDescription)
        guard let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
              let offset = Int(detail[range].dropFirst("character ".count)) else { return detail }
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column): look for a missing or extra comma, quote or brace there"
    }

    /// Edit distance, for suggesting the key that was meant.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

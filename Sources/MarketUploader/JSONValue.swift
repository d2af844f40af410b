import Foundation

/// A JSON value built by hand, so request bodies carry exactly the keys a dialect names
/// (`discounted_price`, never `discountedPrice`) and numbers print as `1200`, not `1200.0`.
enum JSONValue: Sendable {
    case string(String)
    case number(Double)
    case object([String: JSONValue])

    /// Compact JSON with keys sorted, so the same request always has the same bytes.
    func encoded() -> Data { Data(text.utf8) }

    private var text: String {
        switch self {
        case .string(let value): Self.quote(value)
        case .number(let value): NumberText.format(value)
        case .object(let members): "{" + members.keys.sorted().map { "\(Self.quote($0)):\(members[$0]!.text)" }.joined(separator: ",") + "}"
        }
    }

    private static func quote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

import Foundation

/// A password or secret that prints as `<redacted>` wherever it is interpolated, so it cannot reach
/// a log, an error message or a dry run by accident. `reveal` is the one way to read it.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let reveal: String

    public init(_ value: String) { reveal = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}

/// Who may write: a per-product password (G1) or a vendor's identifier and secret (G2/G3).
public enum Credentials: Sendable, Equatable {
    case password(Secret)
    case vendor(identifier: String, secret: Secret)

    /// The secret values, for scrubbing text that might echo them.
    var secrets: [String] {
        switch self {
        case .password(let secret): [secret.reveal]
        case .vendor(_, let secret): [secret.reveal]
        }
    }

    /// Replaces every secret in `text` unless the user asked to see them: as typed, and as a server
    /// echoing a request back would spell it (JSON-escaped, percent- or form-encoded).
    func redact(_ text: String, show: Bool = false) -> String {
        guard !show else { return text }
        let spellings = Set(secrets.filter { !$0.isEmpty }.flatMap(Self.spellings)).sorted { $0.count > $1.count }
        return spellings.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }

    static func spellings(of secret: String) -> [String] {
        var spellings = [secret]
        if let json = try? JSONSerialization.data(withJSONObject: [secret], options: [.fragmentsAllowed]) {
            let escaped = String(decoding: json, as: UTF8.self).dropFirst(2).dropLast(2)
            spellings += [String(escaped), escaped.replacingOccurrences(of: "\\/", with: "/")]
        }
        let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        if let percent = secret.addingPercentEncoding(withAllowedCharacters: unreserved) {
            spellings += [percent, percent.replacingOccurrences(of: "%20", with: "+")]
        }
        return spellings
    }
}

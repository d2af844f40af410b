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

    /// Replaces every secret in `text` unless the user asked to see them, however a server echoing a
    /// request back escapes them (`SecretScrubber`).
    func redact(_ text: String, show: Bool = false) -> String {
        show ? text : SecretScrubber.scrub(text, secrets: secrets)
    }
}

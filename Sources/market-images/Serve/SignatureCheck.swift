import Crypto
import Foundation

/// Checks imgproxy-style URL signatures: base64url (no padding) of HMAC-SHA256(key, salt + path),
/// compared in constant time. Without a key (`--insecure-unsigned`) any signature segment passes.
struct SignatureCheck: Sendable {
    private let key: SymmetricKey?
    private let salt: Data

    init(key: Data?, salt: Data) {
        self.key = key.map { SymmetricKey(data: $0) }
        self.salt = salt
    }

    var isEnabled: Bool { key != nil }

    /// Whether `signature` signs `path` (everything after the signature, starting with `/`).
    func accepts(signature: Substring, path: Substring) -> Bool {
        guard let key else { return true }
        guard let mac = Self.decodeBase64URL(signature), mac.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: salt + Data(path.utf8), using: key)
    }

    private static func decodeBase64URL(_ text: Substring) -> Data? {
        guard !text.contains("=") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

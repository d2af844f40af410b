import Crypto
import Foundation
import ImagePipeline

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
        // imgproxy decodes signatures without padding; a padded one is not a signature.
        guard !signature.contains("="), let mac = Base64URL.decode(signature), mac.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: salt + Data(path.utf8), using: key)
    }
}

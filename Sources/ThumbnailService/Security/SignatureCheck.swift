import Crypto
import Foundation
import ImagePipeline

/// Checks imgproxy-style URL signatures: base64url (no padding) of HMAC-SHA256(key, salt + path),
/// or its first `size` bytes (imgproxy's `IMGPROXY_SIGNATURE_SIZE`), compared in constant time.
/// Several key and salt pairs may be given at once, so keys can be rotated without a moment when
/// old URLs fail; any pair's signature passes. Without pairs any signature segment passes.
struct SignatureCheck: Sendable {
    private let keys: [(key: SymmetricKey, salt: Data)]
    private let size: Int

    init(keys: [SigningKey], size: Int = SHA256.byteCount) {
        self.keys = keys.map { (SymmetricKey(data: $0.key), $0.salt) }
        self.size = size
    }

    var isEnabled: Bool { !keys.isEmpty }

    /// Whether `signature` signs `path` (everything after the signature, starting with `/`).
    func accepts(signature: Substring, path: Substring) -> Bool {
        guard isEnabled else { return true }
        // imgproxy decodes signatures without padding; a padded one is not a signature.
        guard !signature.contains("="), let given = Base64URL.decode(signature), given.count == size else { return false }
        return keys.reduce(false) { found, pair in
            let mac = Data(HMAC<SHA256>.authenticationCode(for: pair.salt + Data(path.utf8), using: pair.key)).prefix(size)
            return Self.equal(mac, given) || found
        }
    }

    /// Byte-wise equality that takes the same time wherever the bytes differ.
    private static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

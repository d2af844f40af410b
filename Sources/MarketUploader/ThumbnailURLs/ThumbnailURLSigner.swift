import Crypto
import Foundation

/// Builds signed URLs for the thumbnail service (`market-images serve`) in imgproxy's format, so an
/// app asks for exactly the size its cell shows: `/{signature}/{option}/…/{source}`.
///
/// The signature is base64url, without padding, of HMAC-SHA256(key, salt + path), where the path is
/// everything after the signature, starting with `/`. Existing imgproxy URL builders produce the same
/// URLs. The HMAC is swift-crypto's, which is CryptoKit itself on Apple platforms.
public struct ThumbnailURLSigner: Sendable {
    /// How the source travels in the URL: base64url (safe for any URL, the default) or plain text.
    public enum SourceEncoding: Sendable {
        case base64
        case plain
    }

    private let key: SymmetricKey
    private let salt: Data
    /// Bytes of the HMAC the signature carries (imgproxy's `IMGPROXY_SIGNATURE_SIZE`), 1–32.
    private let size: Int

    public init(key: Data, salt: Data, signatureSize: Int = 32) {
        self.key = SymmetricKey(data: key)
        self.salt = salt
        size = min(max(signatureSize, 1), 32)
    }

    /// Key and salt as the service takes them: hex strings.
    public init(hexKey: String, hexSalt: String) throws(ThumbnailURLError) {
        guard let key = Self.decodeHex(hexKey), !key.isEmpty else { throw .invalidHex(name: "key") }
        guard let salt = Self.decodeHex(hexSalt) else { throw .invalidHex(name: "salt") }
        self.init(key: Data(key), salt: Data(salt))
    }

    /// The signature of `path` (which starts with `/`).
    public func signature(for path: String) -> String {
        Self.base64URL(Array(HMAC<SHA256>.authenticationCode(for: salt + Data(path.utf8), using: key).prefix(size)))
    }

    /// A `cb` (cache buster) value from a photo's bytes: a replaced photo gets a new URL, so image
    /// caches that key on the URL and ignore `Cache-Control` (the apps' own) load it again.
    public static func cacheBuster(for data: Data) -> String {
        SHA256.hash(data: data).prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// `/{signature}{path}`, the path made by `path(options:source:format:encoding:)`.
    public func signedPath(options: [String], source: String, format: String? = nil, encoding: SourceEncoding = .base64) -> String {
        let path = Self.path(options: options, source: source, format: format, encoding: encoding)
        return "/" + signature(for: path) + path
    }

    /// The full URL on the service at `base`.
    public func url(base: URL, options: [String], source: String, format: String? = nil, encoding: SourceEncoding = .base64) -> URL? {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + signedPath(options: options, source: source, format: format, encoding: encoding))
    }

    /// The part that is signed: `/rs:fill:240:240/g:sm/<source>`. Base64 sources are split into
    /// 16-character segments, as imgproxy's examples do; plain sources are percent-encoded so that
    /// `%`, `?`, `@` and `#` cannot change where the source or the format ends.
    public static func path(options: [String], source: String, format: String? = nil, encoding: SourceEncoding = .base64) -> String {
        let prefix = options.map { "/" + $0 }.joined()
        switch encoding {
        case .base64:
            let encoded = base64URL(Array(source.utf8))
            let segments = stride(from: 0, to: encoded.count, by: 16).map { start -> String in
                let from = encoded.index(encoded.startIndex, offsetBy: start)
                return String(encoded[from..<(encoded.index(from, offsetBy: 16, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
            }
            return prefix + "/" + segments.joined(separator: "/") + (format.map { "." + $0 } ?? "")
        case .plain:
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "%?@#;"))
            let escaped = source.addingPercentEncoding(withAllowedCharacters: allowed) ?? source
            return prefix + "/plain/" + escaped + (format.map { "@" + $0 } ?? "")
        }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes hex digits spell, or nil when they are not an even number of hex digits.
    public static func decodeHex(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

public enum ThumbnailURLError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidHex(name: String)

    public var description: String {
        switch self {
        case .invalidHex(let name): "the \(name) must be hex digits, an even number of them"
        }
    }
}

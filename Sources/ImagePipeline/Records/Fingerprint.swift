import Crypto
import Foundation

/// A stable hash for settings, paths and cache keys: SHA-256, truncated to 128 bits. Keys built from
/// what others send (a service URL, an upload) must not collide on purpose, which FNV-style hashes
/// allow; 128 bits leave no practical collision either way.
public enum Fingerprint {
    public static func hex(_ text: String) -> String {
        hex(Data(text.utf8))
    }

    public static func hex(_ data: Data) -> String {
        hex(bytes: SHA256.hash(data: data).prefix(16))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lower-case hex, two digits a byte. The service computes one per request, so no `String(format:)`.
    public static func hex(bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

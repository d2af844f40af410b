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
        SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

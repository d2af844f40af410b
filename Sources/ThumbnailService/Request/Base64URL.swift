import Foundation
import ImagePipeline

/// Base64url (RFC 4648 §5) as imgproxy URLs use it: `-` and `_` for `+` and `/`, padding optional.
/// Decoded byte by byte: every request decodes its signature and usually its source, and Foundation's
/// string replacing was a tenth of a revalidation's time.
public enum Base64URL {
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(character)] = Int8(index)
        }
        return table
    }()

    /// The bytes, or nil for a character outside the alphabet, a length no encoding has, or padding
    /// anywhere but the end.
    public static func decode<S: StringProtocol>(_ text: S) -> Data? {
        var characters = Array(text.utf8)
        while characters.last == UInt8(ascii: "=") { characters.removeLast() }
        guard characters.count % 4 != 1 else { return nil }
        var bytes = Data(capacity: characters.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The unused low bits of the last character must be zero, as in a canonical encoding.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return bytes
    }
}

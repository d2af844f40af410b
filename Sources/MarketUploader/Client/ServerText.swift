import Foundation

/// Text a server (or a file) supplied, made safe to show: control characters — C0 including
/// newline, DEL, and C1 such as the one-byte CSI `\u{9B}` — are written as escapes, so an answer
/// cannot move the cursor, retitle a window, clear the screen or forge a line of output.
public enum ServerText {
    /// `text` with its control characters escaped, but those in `kept` (a terminal's own newline and
    /// tab, say).
    public static func printable(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control && !kept.contains(scalar) }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        return text.unicodeScalars.map { escapes($0) ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    /// Where a server's answer is not UTF-8: each byte that is not part of a valid sequence becomes a
    /// private-use character (U+10FF00 + the byte), so the JSON still decodes, the rest of the
    /// answer is kept, and `escapingInvalidUTF8` can show the byte as `\xHH` and name it.
    static func markingInvalidUTF8(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        var (at, marked) = (0, false)
        while at < bytes.count {
            let length = validSequenceLength(bytes, at)
            if length > 0 {
                out += bytes[at..<at + length]
                at += length
            } else {
                // U+10FF00 + byte in UTF-8.
                out += [0xF4, 0x8F, 0xBC | bytes[at] >> 6, 0x80 | bytes[at] & 0x3F]
                (at, marked) = (at + 1, true)
            }
        }
        return marked ? Data(out) : data
    }

    /// `text` with each byte `markingInvalidUTF8` marked written as `\xHH`, and whether there was one.
    static func escapingInvalidUTF8(_ text: String) -> (text: String, hadInvalid: Bool) {
        func marked(_ scalar: Unicode.Scalar) -> Bool { scalar.value & ~0xFF == invalidByteMarker }
        guard text.unicodeScalars.contains(where: marked) else { return (text, false) }
        let escaped = text.unicodeScalars.map { marked($0) ? String(format: "\\x%02X", $0.value & 0xFF) : String($0) }.joined()
        return (escaped, true)
    }

    private static let invalidByteMarker: UInt32 = 0x10FF00

    /// The length of the valid UTF-8 sequence at `at` (1–4), or 0.
    private static func validSequenceLength(_ b: [UInt8], _ at: Int) -> Int {
        let lead = b[at]
        let (length, low, high): (Int, UInt8, UInt8) = switch lead {
        case 0x00...0x7F: (1, 0x80, 0xBF)
        case 0xC2...0xDF: (2, 0x80, 0xBF)
        case 0xE0: (3, 0xA0, 0xBF)
        case 0xED: (3, 0x80, 0x9F)
        case 0xE1...0xEF: (3, 0x80, 0xBF)
        case 0xF0: (4, 0x90, 0xBF)
        case 0xF4: (4, 0x80, 0x8F)
        case 0xF1...0xF3: (4, 0x80, 0xBF)
        default: (0, 0, 0)
        }
        guard length > 0, at + length <= b.count else { return 0 }
        for offset in 1..<length {
            let byte = b[at + offset]
            guard offset == 1 ? (low...high).contains(byte) : (0x80...0xBF).contains(byte) else { return 0 }
        }
        return length
    }
}

import Foundation

/// Text a server (or a file) supplied, made safe to show: control characters — C0 including
/// newline, DEL, and C1 such as the one-byte CSI `\u{9B}` — and the bidirectional controls (U+202E
/// and its kin) are written as escapes, so an answer cannot move the cursor, retitle a window, clear
/// the screen, forge a line of output or show its text reversed.
public enum ServerText {
    /// `text` with its control characters escaped, but those in `kept` (a terminal's own newline and
    /// tab, say).
    public static func printable(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.properties.generalCategory == .control || scalar.properties.isBidiControl) && !kept.contains(scalar)
        }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        return text.unicodeScalars.map { escapes($0) ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    /// A server's JSON made readable where its text is not: a byte that begins no UTF-8 character,
    /// or a control byte inside a string (JSON wants it escaped), becomes a private-use character
    /// (U+10FF00 + the byte), and a `\uD800` escape with no partner (no Unicode text has it) becomes
    /// U+F0000 + its distance from U+D800. The JSON then decodes, the rest of the answer is kept, and
    /// `escapingInvalidText` shows each as it was sent (`\xFF`, `\uD800`) and says which there were.
    static func markingInvalidText(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        var (at, marked, inString) = (0, false, false)
        func mark(_ value: UInt32) {
            out += Array(String(Unicode.Scalar(value) ?? "\u{FFFD}").utf8)
            marked = true
        }
        while at < bytes.count {
            let byte = bytes[at]
            if inString, byte < 0x20 {
                mark(invalidByteMarker + UInt32(byte))
                at += 1
            } else if inString, byte == UInt8(ascii: "\\"), at + 1 < bytes.count {
                let unit = bytes[at + 1] == UInt8(ascii: "u") ? hexValue(bytes, at + 2, 4) : nil
                let next = at + 8 <= bytes.count && bytes[at + 6] == UInt8(ascii: "\\") && bytes[at + 7] == UInt8(ascii: "u") ? hexValue(bytes, at + 8, 4) : nil
                if let unit, (0xD800..<0xDC00).contains(unit), let next, (0xDC00..<0xE000).contains(next) {
                    out += bytes[at..<at + 12]
                    at += 12
                } else if let unit, (0xD800..<0xE000).contains(unit) {
                    mark(loneSurrogateMarker + unit - 0xD800)
                    at += 6
                } else {
                    // An escape pair (`\"` included) as sent.
                    out += bytes[at..<at + 2]
                    at += 2
                }
            } else {
                let length = validSequenceLength(bytes, at)
                if length > 0 {
                    if byte == UInt8(ascii: "\"") { inString.toggle() }
                    out += bytes[at..<at + length]
                    at += length
                } else {
                    mark(invalidByteMarker + UInt32(byte))
                    at += 1
                }
            }
        }
        return marked ? Data(out) : data
    }

    /// `text` with each character `markingInvalidText` marked written as it was sent (`\xHH`,
    /// `\uD800`), and those escapes, each once, in order.
    static func escapingInvalidText(_ text: String) -> (text: String, found: [String]) {
        func original(_ scalar: Unicode.Scalar) -> String? {
            switch scalar.value {
            case invalidByteMarker...(invalidByteMarker + 0xFF): String(format: "\\x%02X", scalar.value & 0xFF)
            case loneSurrogateMarker..<(loneSurrogateMarker + 0x800): String(format: "\\u%04X", scalar.value - loneSurrogateMarker + 0xD800)
            default: nil
            }
        }
        let found = text.unicodeScalars.compactMap(original)
        guard !found.isEmpty else { return (text, []) }
        return (text.unicodeScalars.map { original($0) ?? String($0) }.joined(), found.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
    }

    private static func hexValue(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt32? {
        guard at + count <= bytes.count else { return nil }
        return UInt32(String(decoding: bytes[at..<at + count], as: UTF8.self), radix: 16)
    }

    private static let loneSurrogateMarker: UInt32 = 0xF0000
    private static let invalidByteMarker: UInt32 = 0x10FF00

    /// The length of the valid UTF-8 sequence at `at` (1–4), or 0.
    static func validSequenceLength(_ b: [UInt8], _ at: Int) -> Int {
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

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
}

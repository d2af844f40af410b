import Foundation

/// Text a server (or a file) supplied, made safe to show: control characters — C0 including
/// newline, DEL, and C1 such as the one-byte CSI `\u{9B}` — are written as escapes, so an answer
/// cannot move the cursor, retitle a window, clear the screen or forge a line of output.
public enum ServerText {
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return text.unicodeScalars.map { isControl($0) ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}

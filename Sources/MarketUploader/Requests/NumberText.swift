import Foundation

/// Numbers as the servers expect them in text: `1200`, not `1200.0`.
public enum NumberText {
    /// 287412 → "287,412", whatever the machine's locale.
    public static func grouped(_ number: Int64) -> String {
        var text = String(number.magnitude)
        for index in stride(from: text.count - 3, to: 0, by: -3) { text.insert(",", at: text.index(text.startIndex, offsetBy: index)) }
        return (number < 0 ? "-" : "") + text
    }

    public static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// "1 photo", "3 photos".
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

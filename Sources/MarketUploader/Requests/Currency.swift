import Foundation

public enum Currency: String, Sendable, Codable, CaseIterable {
    case KRW
    case USD
}

extension Currency {
    /// An amount as the apps show it: `₩12,000` (the won has no minor unit), `$12.00`. Written by hand
    /// so the text is the same whatever the machine's locale.
    public func format(_ amount: Double) -> String {
        let digits = self == .KRW ? 0 : 2
        let scaled = (abs(amount) * pow(10, Double(digits))).rounded()
        guard scaled.isFinite, scaled < 1e15 else { return "\(symbol)\(amount)" }
        let whole = Int64(scaled) / Int64(pow(10, Double(digits))), fraction = Int64(scaled) % Int64(pow(10, Double(digits)))
        let grouped = NumberText.grouped(whole)
        let minor = digits == 0 ? "" : "." + String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
        return (amount < 0 ? "-" : "") + symbol + grouped + minor
    }

    private var symbol: String { self == .KRW ? "₩" : "$" }
}

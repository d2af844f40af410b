import Foundation

/// The `Date` header's format (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`): a server's
/// clock, for telling how far it is from ours.
public enum HTTPDate {
    public static func parse(_ text: String) -> Date? {
        formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }

    public static func format(_ date: Date) -> String { formatter.string(from: date) }

    private static var formatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}

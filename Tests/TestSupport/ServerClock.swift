import Foundation

/// How the OpenMarket servers write `created_at`: their local time (KST) without a zone.
public enum ServerClock {
    public static func text(_ date: Date) -> String { text(date, zone: "Asia/Seoul") }

    /// A server elsewhere writes its own local time, just as zone-less.
    public static func text(_ date: Date, zone: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
        return formatter.string(from: date)
    }
}

import Foundation

/// How the OpenMarket servers write `created_at`: their local time (KST) without a zone.
public enum ServerClock {
    public static func text(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
        return formatter.string(from: date)
    }
}

import Foundation

/// How long a source's copy answers for it without the origin (`--source-ttl`), and how much longer
/// it is served while the origin fails (`--source-stale-if-error`, as RFC 5861's `stale-if-error`).
struct SourceFreshness: Sendable {
    var ttl: Double
    var staleIfError: Double

    func isFresh(_ record: SourceCache.Record, now: Date) -> Bool {
        now.timeIntervalSince1970 - record.validated < ttl
    }

    func isUsableOnError(_ record: SourceCache.Record, now: Date) -> Bool {
        now.timeIntervalSince1970 - record.validated < ttl + staleIfError
    }
}

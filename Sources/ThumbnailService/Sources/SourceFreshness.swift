import Foundation

/// How long a source's copy answers for it without the origin (`--source-ttl`), and how much longer
/// it is served while the origin fails (`--source-stale-if-error`, as RFC 5861's `stale-if-error`).
/// A record confirmed in the future (another instance's clock running fast, or a hand-edited record
/// in a shared folder or bucket) is not fresh, past a minute's skew: it would put off every
/// revalidation for as long.
struct SourceFreshness: Sendable {
    var ttl: Double
    var staleIfError: Double
    static let clockSkew: Double = 60

    func isFresh(_ record: SourceCache.Record, now: Date) -> Bool {
        age(record, now).map { $0 < ttl } ?? false
    }

    func isUsableOnError(_ record: SourceCache.Record, now: Date) -> Bool {
        age(record, now).map { $0 < ttl + staleIfError } ?? false
    }

    private func age(_ record: SourceCache.Record, _ now: Date) -> Double? {
        let age = now.timeIntervalSince1970 - record.validated
        return age >= -Self.clockSkew ? age : nil
    }
}

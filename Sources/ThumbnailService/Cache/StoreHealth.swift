import Foundation
import ImagePipeline
import Logging

/// Whether the bucket cache's store answers, told as episodes the log can bear. The first failure
/// opens one (one warning, saying what failed and that images are served without the cache); it
/// closes (one notice, with how many operations failed over how long) only once the store has gone
/// `settleTime` without failing, so a store that fails one request in twenty is one episode, not a
/// warning and a notice per failure: at most one warning and one notice a `settleTime`.
/// Each failure also backs off: until the store answers again it is tried at most once every
/// `probeInterval` and every other request goes straight to rendering, so a store that hangs costs
/// one deadline per interval, not one per request.
final class StoreHealth: Sendable {
    private struct Episode {
        let began: Date
        var failures: Int
        var lastFailure: Date
    }

    private struct State {
        var episode: Episode?
        /// While backing off, when the store may be tried next.
        var nextProbe: Date?
    }

    /// A minute: closing sooner, a store failing every few seconds would log as often as it fails.
    static let settleTime: TimeInterval = 60
    let probeInterval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let state = Locked(State())

    init(probeInterval: Duration = .seconds(1), clock: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        (self.probeInterval, self.clock, self.logger) = (probeInterval, clock, logger)
    }

    /// Whether to try the store now: always while it answers; after a failure, once an interval.
    func mayTry() -> Bool {
        let now = clock()
        return state.withLock { state in
            guard let next = state.nextProbe else { return true }
            guard now >= next else { return false }
            state.nextProbe = now + ServiceSetting.seconds(probeInterval)
            return true
        }
    }

    func succeeded() {
        let now = clock()
        let ended = state.withLock { state -> Episode? in
            state.nextProbe = nil
            guard let episode = state.episode, now.timeIntervalSince(episode.lastFailure) >= Self.settleTime else { return nil }
            state.episode = nil
            return episode
        }
        guard let ended else { return }
        let span = Int(ended.lastFailure.timeIntervalSince(ended.began).rounded())
        let failed = "\(ended.failures) operation\(ended.failures == 1 ? "" : "s") failed over \(span) s"
        logger.notice("the cache bucket answers again, with no failure for \(Int(Self.settleTime)) s (\(failed))")
    }

    /// The store down, slow or refusing: the next requests skip it for an interval.
    func failed(_ what: String) {
        let now = clock()
        let began = state.withLock { state -> Bool in
            state.nextProbe = now + ServiceSetting.seconds(probeInterval)
            guard state.episode == nil else {
                state.episode?.failures += 1
                state.episode?.lastFailure = now
                return false
            }
            state.episode = Episode(began: now, failures: 1, lastFailure: now)
            return true
        }
        if began { logger.warning("the cache bucket failed: \(what); images are rendered and served without it until it answers again") }
    }
}

import ImagePipeline
import Logging

/// Whether the bucket cache's store answers, as episodes: the first failure after a success starts
/// one (one warning, saying what failed and that images are served without the cache), the first
/// success after failures ends it (one notice, with how many operations failed meanwhile). While
/// one lasts, the store is tried at most once every `probeInterval` and every other request goes
/// straight to rendering: a store that hangs costs one deadline per interval, not one per request,
/// and the log gets two lines per outage, not one per request.
final class StoreHealth: Sendable {
    private struct State {
        var failing = false
        var failures = 0
        var nextProbe: ContinuousClock.Instant?
    }

    let probeInterval: Duration
    private let logger: Logger
    private let state = Locked(State())

    init(probeInterval: Duration = .seconds(1), logger: Logger) {
        (self.probeInterval, self.logger) = (probeInterval, logger)
    }

    /// Whether to try the store now: always while it answers; during an episode, once an interval.
    func mayTry() -> Bool {
        state.withLock { state in
            guard state.failing, let next = state.nextProbe else { return true }
            let now = ContinuousClock.now
            guard now >= next else { return false }
            state.nextProbe = now + probeInterval
            return true
        }
    }

    func succeeded() {
        let ended = state.withLock { state -> Int? in
            guard state.failing else { return nil }
            defer { state = State() }
            return state.failures
        }
        if let ended { logger.notice("the cache bucket answers again (\(ended) operation\(ended == 1 ? "" : "s") failed meanwhile)") }
    }

    /// A failure: the store down, slow or refusing (`backingOff`: the next requests skip it), or an
    /// object that failed its check (the store answers; only that object is a miss).
    func failed(_ what: String, backingOff: Bool = true) {
        let started = state.withLock { state -> Bool in
            defer {
                state.failing = true
                state.failures += 1
                if backingOff { state.nextProbe = ContinuousClock.now + probeInterval }
            }
            return !state.failing
        }
        if started { logger.warning("the cache bucket failed: \(what); images are rendered and served without it until it answers again") }
    }
}

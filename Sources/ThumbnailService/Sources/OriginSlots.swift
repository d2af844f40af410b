import ImagePipeline

/// Downloads in flight per origin (`--max-downloads-per-origin`): one slow origin can hold only
/// its share of the download slots, and the rest stay free for the others.
final class OriginSlots: Sendable {
    let limit: Int
    private let inFlight = Locked([String: Int]())

    init(limit: Int) { self.limit = limit }

    /// A download slot for `url`'s origin, or 503 when the origin has `limit` downloads already.
    func take(for url: SourceURL) throws(ServiceFailure) -> Slot {
        let origin = "\(url.scheme)://\(url.host):\(url.port)"
        let taken = inFlight.withLock { counts in
            guard counts[origin, default: 0] < limit else { return false }
            counts[origin, default: 0] += 1
            return true
        }
        guard taken else { throw .unavailable("origin-busy", "\(limit) downloads from this origin are in flight; try again shortly") }
        return Slot(origin: origin, slots: self)
    }

    /// One download's place, given back when it ends.
    struct Slot {
        let origin: String
        let slots: OriginSlots

        func giveBack() {
            slots.inFlight.withLock { counts in
                counts[origin] = counts[origin, default: 1] > 1 ? counts[origin, default: 1] - 1 : nil
            }
        }
    }
}

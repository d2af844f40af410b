import ImagePipeline

/// Sources held in memory at once, downloading or waiting to be rendered (`--max-downloads`).
final class SourceSlots: Sendable {
    let limit: Int
    private let held = Locked(0)

    init(limit: Int) { self.limit = limit }

    func acquire() -> Bool {
        held.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func release() { held.withLock { $0 -= 1 } }
}

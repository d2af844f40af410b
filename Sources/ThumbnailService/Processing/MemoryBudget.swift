/// The memory every render in the process may hold together (`--render-memory`): a render waits,
/// first come first served, until the estimate of what it will hold (`DecodeCost`) fits beside the
/// ones running, so several medium files cannot add up to what one large one was refused for.
actor MemoryBudget {
    let limit: Int
    private var used = 0
    private var waiting: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Returns once `bytes` are held for the caller; `release` them when the render is done.
    func acquire(_ bytes: Int) async {
        if waiting.isEmpty, used + bytes <= limit {
            used += bytes
            return
        }
        await withCheckedContinuation { waiting.append((bytes, $0)) }
    }

    func release(_ bytes: Int) {
        used -= bytes
        while let next = waiting.first, used + next.bytes <= limit || used == 0 {
            waiting.removeFirst()
            used += next.bytes
            next.continuation.resume()
        }
    }

    /// Renders waiting for memory now (the tests order events by it).
    var queued: Int { waiting.count }
}

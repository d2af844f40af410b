/// Holds callers until opened: orders a test's events by a continuation, never by a sleep.
public actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func open() {
        isOpen = true
        waiting.forEach { $0.resume() }
        waiting = []
    }
}

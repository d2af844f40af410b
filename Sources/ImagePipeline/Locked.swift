import Foundation

/// A value shared between threads, reached only under its lock: the one helper for the counters,
/// flags and small tables the pipeline, the service and the tool share across tasks.
/// (`Synchronization.Mutex` would do, but needs macOS 15; the package supports 13.)
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }

    public var current: Value { withLock { $0 } }
}

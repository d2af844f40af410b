import Foundation
import ImagePipeline

/// Runs concurrent requests for the same output once: the first caller starts the work, later
/// callers with the same key wait for its result. The work runs in a task of its own, so one caller
/// going away (a client disconnecting) does not cancel it for the others; when every caller has gone,
/// it is cancelled (work still queued for a worker then costs nothing).
public actor SingleFlight<Value: Sendable> {
    private struct Flight {
        let task: Task<Value, any Error>
        var waiters: Int
    }

    private var flights: [String: Flight] = [:]
    /// How many times work actually started, for metrics and tests.
    public private(set) var started = 0

    public init() {}

    /// Callers waiting on the work for `key` now (0 when none runs).
    public func waiting(for key: String) -> Int { flights[key]?.waiters ?? 0 }

    public func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task: Task<Value, any Error>
        if let flight = flights[key] {
            task = flight.task
            flights[key]?.waiters += 1
        } else {
            task = Task { try await work() }
            flights[key] = Flight(task: task, waiters: 1)
            started += 1
        }
        defer { leave(key, task) }
        return try await Self.wait(for: task)
    }

    /// One caller is done with `task`; the last one forgets it (cancelling it if it still runs), so
    /// the next request for the key starts afresh.
    private func leave(_ key: String, _ task: Task<Value, any Error>) {
        guard var flight = flights[key], flight.task == task else { return }
        flight.waiters -= 1
        if flight.waiters > 0 {
            flights[key] = flight
        } else {
            flights[key] = nil
            task.cancel()
        }
    }

    /// The task's value, or `CancellationError` as soon as the waiting caller is cancelled (awaiting
    /// `task.value` alone would wait for the work to end).
    private static func wait(for task: Task<Value, any Error>) async throws -> Value {
        let waiter = Waiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.install(continuation)
                Task { waiter.finish(await task.result) }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// Resumes a continuation once, with whichever comes first: the result or the cancellation.
    private final class Waiter: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Value, any Error>?
        private var result: Result<Value, any Error>?

        func install(_ continuation: CheckedContinuation<Value, any Error>) {
            let ready: Result<Value, any Error>? = lock.withLock {
                if result == nil { self.continuation = continuation }
                return result
            }
            if let ready { continuation.resume(with: ready) }
        }

        func finish(_ outcome: Result<Value, any Error>) {
            let waiting: CheckedContinuation<Value, any Error>? = lock.withLock {
                guard result == nil else { return nil }
                result = outcome
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(with: outcome)
        }
    }
}

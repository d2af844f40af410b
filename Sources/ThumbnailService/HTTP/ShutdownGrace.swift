import Foundation
import Hummingbird
import ImagePipeline
import ServiceLifecycle

/// What SIGTERM's `--grace` means for a request in flight: it has that long to finish; one that
/// cannot (a render still queued or running) is answered 503 with `Retry-After` when the grace ends,
/// so a client behind a load balancer retries elsewhere instead of seeing its connection cut. The
/// service itself stops a moment later (`stopMargin`); the abandoned render ends with the process.
struct ShutdownGrace: Sendable {
    let grace: Duration
    /// How long after the grace the service is stopped, to write the 503s.
    static let stopMargin: Duration = .seconds(2)

    /// `work`'s answer, or the 503 if the service is shutting down and the grace ends first. A
    /// request whose client went away is cancelled as before (queued work is dropped).
    func answer(_ work: @escaping @Sendable () async -> Response) async -> Response {
        let pending = Locked<CheckedContinuation<Response, Never>?>(nil)
        let tasks = Locked<[Task<Void, Never>]>([])
        let finish: @Sendable (Response) -> Void = { response in
            pending.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(returning: response)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending.withLock { $0 = continuation }
                let deadline = Task {
                    do {
                        try await gracefulShutdown()
                        try await Task.sleep(for: grace)
                    } catch {
                        return
                    }
                    finish(ServiceFailure.unavailable("shutting-down", "the service is stopping; try again").response)
                }
                let answer = Task {
                    finish(await work())
                    deadline.cancel()
                }
                tasks.withLock { $0 = [deadline, answer] }
            }
        } onCancel: {
            for task in tasks.current { task.cancel() }
        }
    }
}

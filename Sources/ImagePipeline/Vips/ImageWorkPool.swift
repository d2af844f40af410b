import Foundation

/// Runs image work on a fixed set of threads, with a bounded queue in front of them.
///
/// Throughput comes from whole images in parallel, about one per core; libvips' own threads inside
/// each image are sized from the worker count so the machine is used, not oversubscribed. libvips
/// keeps that setting process-wide, so a process should have one pool: the service for its lifetime,
/// a folder run for its length. Work waiting in the queue can be cancelled and then costs nothing;
/// work that has started is stopped at its next tile, row or operation (`RenderWatch`).
public final class ImageWorkPool: Sendable {
    public let workers: Int
    public let queueLimit: Int
    private let state: State

    /// `queueLimit` jobs may wait beyond the ones running; more are refused with `.overloaded`.
    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, queueLimit: Int = .max) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        state = State(workers: self.workers, queueLimit: self.queueLimit)
        VipsRuntime.setThreadsPerImage(ProcessInfo.processInfo.activeProcessorCount / self.workers)
        for index in 0..<self.workers {
            let thread = Thread { [state] in state.workLoop() }
            thread.name = "image-worker-\(index)"
            thread.start()
        }
    }

    deinit {
        state.shutdown()
    }

    /// Jobs waiting for a worker now.
    public var queued: Int { state.queuedCount }

    /// Jobs on a worker now.
    public var running: Int { state.runningCount }

    /// Runs `work` on a worker when one is free, for at most `timeout` once it starts (then it is
    /// stopped and this throws `.timedOut`). If the calling task is cancelled, queued work is dropped
    /// and running work is stopped; this throws `.cancelled`.
    public func run<T: Sendable>(timeout: Duration? = nil, _ work: @escaping @Sendable () throws(ImagePipelineError) -> T) async throws(ImagePipelineError) -> T {
        let id = state.nextID()
        let watch = RenderWatch(timeout: timeout)
        let result: Result<T, ImagePipelineError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let accepted = state.enqueue(id: id, watch: watch) { cancelled in
                    guard !cancelled else { return { continuation.resume(returning: .failure(.cancelled)) } }
                    let result = watch.run { Result { () throws(ImagePipelineError) in try work() } }.mapError { error -> ImagePipelineError in
                        switch watch.stop {
                        case .deadline?: .timedOut(limit: timeout ?? .zero)
                        case .cancelled?: .cancelled
                        case nil: error
                        }
                    }
                    return { continuation.resume(returning: result) }
                }
                if !accepted { return continuation.resume(returning: .failure(.overloaded(queueLimit: queueLimit))) }
                // A cancellation that came before the job was queued found nothing to drop.
                if Task.isCancelled { state.cancel(id: id) }
            }
        } onCancel: {
            watch.cancel()
            state.cancel(id: id)
        }
        return try result.get()
    }

    /// Drops the queued work, stops the running work (`RenderWatch`: at its next tile, row or
    /// operation) and returns once no worker is busy, or after `limit`: for a service about to exit,
    /// since a process that exits while a decoder runs on another thread can crash in its exit
    /// handlers (libde265's, seen as SIGSEGV at the end of a graceful stop).
    public func stopAll(within limit: Duration) async {
        let deadline = Date().addingTimeInterval(limit.inSeconds)
        state.stopAll()
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [state] in
                state.waitUntilIdle(before: deadline)
                continuation.resume()
            }
        }
    }

    /// Runs `body` for each index on the workers and returns when all have run: for synchronous
    /// batch callers. Ignores the queue limit.
    func forEach(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            _ = state.enqueue(id: state.nextID(), bounded: false) { _ in
                body(index)
                return group.leave
            }
        }
        group.wait()
    }

    private final class State: @unchecked Sendable {
        private struct Job {
            let id: UInt64
            var watch: RenderWatch?
            /// Called once: with `true` when the job was cancelled before it started. Returns what
            /// tells its caller, called once the worker counts as free again, so a caller that asks
            /// at once for more finds the worker it just left.
            let body: (Bool) -> () -> Void
        }

        private let condition = NSCondition()
        /// Jobs before `head` have been taken; their slots are emptied at once, since a job's closure
        /// holds what it works on (a downloaded source is its whole body) until the array is compacted.
        private var jobs: [Job?] = []
        private var head = 0
        private var lastID: UInt64 = 0
        private var stopped = false
        /// The watches of the jobs on a worker now, by job.
        private var running: [UInt64: RenderWatch?] = [:]
        private let workers: Int
        private let queueLimit: Int

        init(workers: Int, queueLimit: Int) { (self.workers, self.queueLimit) = (workers, queueLimit) }

        var queuedCount: Int { condition.withLock { jobs.count - head } }
        var runningCount: Int { condition.withLock { running.count } }

        func nextID() -> UInt64 {
            condition.withLock {
                lastID += 1
                return lastID
            }
        }

        func enqueue(id: UInt64, bounded: Bool = true, watch: RenderWatch? = nil, _ body: @escaping (Bool) -> () -> Void) -> Bool {
            condition.withLock {
                // What an idle worker is about to take does not wait: with a queue of 0, a free worker still takes a job.
                guard !bounded || jobs.count - head - max(0, workers - running.count) < queueLimit else { return false }
                jobs.append(Job(id: id, watch: watch, body: body))
                condition.signal()
                return true
            }
        }

        func cancel(id: UInt64) {
            let job: Job? = condition.withLock {
                guard let index = jobs[head...].firstIndex(where: { $0?.id == id }) else { return nil }
                return jobs.remove(at: index)
            }
            job?.body(true)()
        }

        func workLoop() {
            while let job = take() {
                let tell = job.body(false)
                condition.withLock {
                    running[job.id] = nil
                    condition.broadcast()
                }
                tell()
            }
        }

        /// Every queued job dropped, every running one told to stop.
        func stopAll() {
            let (queued, watches) = condition.withLock {
                defer {
                    jobs.removeAll()
                    head = 0
                }
                return (jobs[head...].compactMap { $0 }, running.values.compactMap { $0 })
            }
            watches.forEach { $0.cancel() }
            queued.forEach { $0.body(true)() }
        }

        func waitUntilIdle(before deadline: Date) {
            condition.withLock {
                while !running.isEmpty, condition.wait(until: deadline) {}
            }
        }

        private func take() -> Job? {
            condition.withLock {
                while head == jobs.count && !stopped { condition.wait() }
                guard head < jobs.count else { return nil }
                let job = jobs[head]
                jobs[head] = nil
                head += 1
                if let job { running[job.id] = job.watch }
                // Compact now and then, so the array does not grow for the life of a service.
                if head > 1024, head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                return job
            }
        }

        func shutdown() {
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
        }
    }
}

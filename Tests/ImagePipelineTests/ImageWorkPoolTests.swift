import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// The bounded pool the service and folder runs process images on: at most `workers` at once, a full
/// queue refused at once, and queued work that is cancelled never runs.
final class ImageWorkPoolTests: XCTestCase {
    /// Counts jobs running at the same moment.
    private final class Gauge: @unchecked Sendable {
        private let lock = NSLock()
        private var running = 0
        private(set) var peak = 0
        private(set) var started = 0

        func enter() { lock.withLock { running += 1; started += 1; peak = max(peak, running) } }
        func leave() { lock.withLock { running -= 1 } }
        var count: Int { lock.withLock { started } }
        var now: Int { lock.withLock { running } }
    }

    /// Eight jobs that each hold their worker until released: two run, six wait, and releasing them
    /// lets the rest through two at a time.
    func testNoMoreThanTheWorkersRunAtOnce() async throws {
        let pool = ImageWorkPool(workers: 2)
        let gauge = Gauge()
        let release = DispatchSemaphore(value: 0)
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await pool.run {
                        gauge.enter()
                        release.wait()
                        gauge.leave()
                        return index * 2
                    }
                }
            }
            try await waitUntil("two jobs running and six queued") { gauge.now == 2 && pool.queued == 6 }
            for _ in 0..<8 { release.signal() }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.sorted(), (0..<8).map { $0 * 2 })
        XCTAssertEqual(gauge.peak, 2)
    }

    func testAFullQueueIsRefusedAtOnce() async throws {
        let pool = ImageWorkPool(workers: 1, queueLimit: 1)
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let first = Task { try await pool.run { running.signal(); release.wait(); return 1 } }
        running.wait()
        let second = Task { try await pool.run { 2 } }
        try await waitUntil("the second job to queue") { pool.queued == 1 }
        do {
            _ = try await pool.run { 3 }
            XCTFail("a third job must not fit")
        } catch {
            XCTAssertEqual(error, .overloaded(queueLimit: 1))
        }
        release.signal()
        let answers = try await [first.value, second.value]
        XCTAssertEqual(answers, [1, 2])
    }

    /// A queue of 0 means no waiting, not no work: a free worker takes a job, a busy one refuses the
    /// next (imgproxy's `IMGPROXY_REQUESTS_QUEUE_SIZE=0`, its "no limit", once made every request 503).
    func testAQueueOfZeroStillRunsWhatAFreeWorkerCanTake() async throws {
        let pool = ImageWorkPool(workers: 1, queueLimit: 0)
        let answer = try await pool.run { 1 }
        XCTAssertEqual(answer, 1, "an idle pool with no queue runs a job")
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        // The worker the first job left is free as soon as its caller hears back: no 503 in between.
        let first = Task { try await pool.run { running.signal(); release.wait(); return 2 } }
        XCTAssertEqual(running.wait(timeout: .now() + 30), .success, "the worker the first job left takes the next at once")
        do {
            _ = try await pool.run { 3 }
            XCTFail("no job may wait")
        } catch {
            XCTAssertEqual(error, .overloaded(queueLimit: 0))
        }
        release.signal()
        let second = try await first.value
        XCTAssertEqual(second, 2)
        for round in 0..<200 {
            let answer = try await pool.run { round }
            XCTAssertEqual(answer, round, "a job asked for right after one finishes")
        }
    }

    /// A client that goes away while its job waits costs no processing.
    func testCancelledQueuedWorkNeverRuns() async throws {
        let pool = ImageWorkPool(workers: 1)
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let gauge = Gauge()
        let blocker = Task { try await pool.run { running.signal(); release.wait() } }
        running.wait()
        let queued = Task { try await pool.run { gauge.enter(); gauge.leave() } }
        try await waitUntil("the job to queue") { pool.queued == 1 }
        queued.cancel()
        do {
            try await queued.value
            XCTFail("cancelled work must not complete")
        } catch {
            XCTAssertEqual(error as? ImagePipelineError, .cancelled)
        }
        XCTAssertEqual(pool.queued, 0)
        release.signal()
        try await blocker.value
        try await pool.run {}
        XCTAssertEqual(gauge.count, 0)
    }

    /// A finished job lets go of what its closure holds: the service's jobs hold a downloaded source's
    /// whole body, and keeping the last thousand of them kept ~0.7 GB of 2K JPEGs alive.
    func testAFinishedJobReleasesWhatItHeld() async throws {
        final class Payload: Sendable {}
        let pool = ImageWorkPool(workers: 1)
        weak var watched: Payload?
        do {
            let payload = Payload()
            watched = payload
            try await pool.run { withExtendedLifetime(payload) {} }
        }
        let released = blockUntil("the finished job to let go of its payload", seconds: 5) { watched == nil }
        XCTAssertTrue(released)
    }
}

import ImagePipeline
import TestSupport
import XCTest
@testable import ThumbnailService

/// Renders admitted by their estimates against one budget: what fits runs, the rest waits its turn.
final class MemoryBudgetTests: XCTestCase {
    func testRendersWaitUntilTheirEstimateFitsFirstComeFirstServed() async throws {
        let budget = MemoryBudget(limit: 100)
        await budget.acquire(60)
        let order = Locked<[String]>([])
        let large = Task { await budget.acquire(60); order.withLock { $0.append("large") } }
        try await waitUntil("the large render to wait") { await budget.queued == 1 }
        let small = Task { await budget.acquire(10); order.withLock { $0.append("small") } }
        try await waitUntil("the small one to wait behind it") { await budget.queued == 2 }
        XCTAssertEqual(order.current, [], "10 would fit beside 60, but the large render came first")
        await budget.release(60)
        await large.value
        await small.value
        XCTAssertEqual(order.current, ["large", "small"])
        let queued = await budget.queued
        XCTAssertEqual(queued, 0)
    }
}

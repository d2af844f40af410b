import ImagePipeline
import TestSupport
import XCTest
@testable import ThumbnailService

/// Renders admitted by their estimates against one budget: what fits runs, the rest waits its turn.
final class MemoryBudgetTests: XCTestCase {
    func testRendersWaitUntilTheirEstimateFitsFirstComeFirstServed() async throws {
        let budget = MemoryBudget(limit: 100)
        await budget.acquire(60)
        let large = Task { await budget.acquire(90) }
        try await waitUntil("the large render to wait") { await budget.queued == 1 }
        let small = Task { await budget.acquire(20) }
        try await waitUntil("the small one to wait behind it, though 20 would fit beside 60") { await budget.queued == 2 }
        // The grants, not the order in which two granted tasks go on (which is the scheduler's): the
        // large one first, and the small one only once there is room beside it.
        await budget.release(60)
        await large.value
        let behind = await budget.queued
        XCTAssertEqual(behind, 1, "the small render still waits: 90 and 20 do not fit together")
        await budget.release(90)
        await small.value
        let queued = await budget.queued
        XCTAssertEqual(queued, 0)
    }
}

import Foundation
import XCTest

/// Waits for `condition` for up to `seconds`, failing with what it waited for.
public func waitUntil(_ what: String, seconds: Double = 10, file: StaticString = #filePath, line: UInt = #line,
               _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    XCTFail("waited \(seconds) s for \(what)", file: file, line: line)
}

/// `waitUntil` for synchronous tests: polls `condition` for up to `seconds`, failing with what it
/// waited for; returns whether it came true.
@discardableResult
public func blockUntil(_ what: String, seconds: Double = 10, file: StaticString = #filePath, line: UInt = #line,
                       _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    XCTFail("waited \(seconds) s for \(what)", file: file, line: line)
    return false
}

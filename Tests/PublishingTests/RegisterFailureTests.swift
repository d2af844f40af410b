import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// A register the server fails or refuses: what may have listed the product stays pending and is
/// never sent again unasked; what was refused listed nothing and is forgotten; and an answer that
/// reuses another listing's id is never recorded for a second folder.
final class RegisterFailureTests: PublishingTestCase {
    /// A 500 may hide a listing: the step says the product is pending, the rerun looks for it, finds
    /// none, and still sends nothing until a resend is asked for.
    func testAServerErrorLeavesTheRegisterPendingAndItIsResentOnlyWhenAsked() async throws {
        try await start(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        let failed = try await publish(arming: [.status(500, body: #"{"code":500,"message":"timeout writing to the database"}"#)])
        XCTAssertEqual(failed.map(\.result), [.failed])
        let error = try XCTUnwrap(failed[0].error)
        XCTAssertTrue(error.contains("database"), error)
        XCTAssertTrue(error.contains("it is pending: the next run looks for the listing"), error)

        let rerun = try await publish()
        XCTAssertEqual(rerun.map(\.action), [.pending])
        XCTAssertTrue(rerun.allSatisfy(\.isUnresolved))
        XCTAssertTrue(rerun[0].detail.contains("no listing on the server matches") && rerun[0].detail.contains("--resend-pending"), rerun[0].detail)
        var posts = await postCount()
        XCTAssertEqual(posts, 1, "the pending product was not sent again")

        // Within a minute of the register the servers may not list it yet: not sent again.
        let early = try await publish { $0.resendPending = true }
        XCTAssertEqual(early.map(\.action), [.pending])
        XCTAssertTrue(early[0].detail.contains("can take a minute to list a product"), early[0].detail)
        posts = await postCount()
        XCTAssertEqual(posts, 1)

        try backdateRecord()
        let resent = try await publish { $0.resendPending = true }
        XCTAssertEqual(resent.map(\.result), [.done], "\(resent.map { $0.error ?? "" })")
        posts = await postCount()
        XCTAssertEqual(posts, 2)
    }

    func testARefusedRegisterIsForgottenAndSentAgain() async throws {
        try await start(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        let refused = try await publish(arming: [.status(400, body: #"{"code":400,"message":"JSON parse error"}"#)])
        XCTAssertEqual(refused.map(\.result), [.failed])
        XCTAssertEqual(try PublishLedger.load(from: products).entries(on: baseURL).count, 0, "a refused request listed nothing")
        let rerun = try await publish()
        XCTAssertEqual(rerun.map(\.action), [.register])
        XCTAssertEqual(rerun.map(\.result), [.done], "\(rerun.map { $0.error ?? "" })")
    }

    /// The server answers a second folder's register with the first one's id: two folders are never
    /// recorded as one listing.
    func testAnIdTheServerAlreadyGaveIsNotRecordedTwice() async throws {
        try await start(.openmarket)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        let steps = try await publish(arming: [.delay(seconds: 0), .status(201, body: #"{"id":101,"name":"Product b","vendor_id":7}"#)])
        XCTAssertEqual(steps.map(\.result), [.done, .failed])
        let error = try XCTUnwrap(steps.step("b")?.error)
        XCTAssertTrue(error.contains("product id 101, which is already recorded for another listing"), error)
        let ledger = try ledgerText()
        XCTAssertEqual(ledger.components(separatedBy: "\"productID\" : 101").count - 1, 1, ledger)
    }
}

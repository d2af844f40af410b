import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Publishing stopped while the server holds its register (a crash, a dropped laptop, Ctrl-C): the
/// record says pending before the request leaves, and the rerun looks for the listing the server
/// made anyway instead of listing the product twice.
final class InterruptedRegisterTests: PublishingTestCase {
    /// Starts publishing with the server holding back its answer to the first register. Once the
    /// request is in, the record on disk must already say pending; the run is then stopped before any
    /// answer, and the server lists the product all the same.
    private func publishStoppedDuringRegister() async throws {
        let release = Gate(), arrived = Gate(), handled = Gate()
        var run = try publishRun()
        let first = try await run.plan(folders: ProductsFolder(products).productFolders)[0]
        await server.arm(.hold(until: release, arrived: arrived, handled: handled))
        let running = Task { [run] in
            var run = run
            return await run.apply(first)
        }
        await arrived.wait()
        let record = try PublishLedger.load(from: products).entries(on: baseURL)
        XCTAssertEqual(record.map(\.folder), ["a"])
        XCTAssertEqual(record.map(\.entry.state), [.pending], "recorded as pending before the request left")
        running.cancel()
        let stopped = await running.value
        XCTAssertEqual(stopped.result, .failed)
        await release.open()
        await handled.wait()
    }

    /// In each dialect: the rerun finds the listing and adopts it, and registers the folder the
    /// stopped run never reached.
    func testARunStoppedMidRegisterIsAdoptedAndNothingIsListedTwice() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
            try await publishStoppedDuringRegister()

            let rerun = try await publish()
            XCTAssertFalse(rerun.contains(where: \.isUnresolved), "\(dialect): \(rerun.map { $0.error ?? $0.detail })")
            XCTAssertEqual(rerun.step("a")?.action, .adopt, "\(dialect)")
            XCTAssertEqual(rerun.step("b")?.action, .register, "\(dialect)")
            let names = await server.products.values.map { $0.fields[dialect == .items ? "title" : "name"] ?? "" }.sorted()
            XCTAssertEqual(names, ["Product a", "Product b"], "\(dialect): each product listed exactly once")
            let again = try await plan()
            XCTAssertEqual(again.map(\.action), [.unchanged, .unchanged], "\(dialect): the adopted listing is recorded")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// Two listings match the unanswered register: neither is adopted and nothing is registered, even
    /// when a resend is asked for; a dry run does not even look.
    func testTwoListingsLikeTheUnansweredRegisterLeaveItPending() async throws {
        try await start(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        try await publishStoppedDuringRegister()
        let listed = try await XCTUnwrapAsync(server.products.values.first).fields
        _ = try await client.register(ProductDraft(name: listed["name"] ?? "", description: listed["description"] ?? "",
                                                   price: Double(listed["price"] ?? "") ?? 0, stock: 2),
                                      images: [try Self.jpeg()], credentials: Self.vendor)
        let sent = await server.requestCount
        let dry = try await plan { $0.dryRun = true }
        XCTAssertEqual(dry.map(\.action), [.pending])
        XCTAssertTrue(dry[0].detail.contains("a real run looks it up"), dry[0].detail)
        let afterDryRun = await server.requestCount
        XCTAssertEqual(afterDryRun, sent, "a dry run does not even look")

        for resend in [false, true] {
            let rerun = try await publish { $0.resendPending = resend }
            XCTAssertEqual(rerun.map(\.action), [.pending])
            XCTAssertTrue(rerun.allSatisfy(\.isUnresolved))
            XCTAssertTrue(rerun[0].detail.contains("2 listings ("), rerun[0].detail)
        }
        let listings = await server.products.count
        XCTAssertEqual(listings, 2, "nothing registered a third time")
    }
}

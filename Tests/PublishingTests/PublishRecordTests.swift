import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// The publish record follows the server: each folder is registered once across runs, however the
/// server's URL is spelled; a dry run writes nothing; listings deleted or orphaned leave the record;
/// and a record from before publishing compared anything is taken as it is, once.
final class PublishRecordTests: PublishingTestCase {
    func testEachFolderIsRegisteredOnceAcrossRuns() async throws {
        try await start(.marketTraining)
        for name in ["a", "b", "c"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        let first = try await publish()
        XCTAssertEqual(first.map(\.result), [.done, .done, .done], "\(first.map { $0.error ?? "" })")
        var count = await server.products.count
        XCTAssertEqual(count, 3)

        _ = try productFolder("d", photos: ["alpha/Flag_of_the_Netherlands-alpha.png"])
        let second = try await publish()
        XCTAssertEqual(second.map(\.action), [.unchanged, .unchanged, .unchanged, .register])
        XCTAssertEqual(second.step("d")?.result, .done)
        count = await server.products.count
        XCTAssertEqual(count, 4, "no product listed twice")
    }

    /// The same loopback server spelled four ways is one server: nothing is listed twice.
    func testTheServerIsKnownHoweverItsURLIsSpelled() async throws {
        try await start(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        let port = try XCTUnwrap(baseURL.port)
        // The server listens on IPv4 only: its IPv6 name is one record key with the others.
        XCTAssertEqual(PublishLedger.key(server: try XCTUnwrap(URL(string: "http://[::1]:\(port)")), folder: "a"),
                       PublishLedger.key(server: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)")), folder: "a"))
        for spelling in ["http://127.0.0.1:\(port)", "http://localhost:\(port)/", "HTTP://LOCALHOST:\(port)//"] {
            let url = try XCTUnwrap(URL(string: spelling))
            var run = try PublishRun(productsFolder: products, server: url, client: client(at: url, .openmarket), credentials: Self.vendor,
                                     photos: photoCache)
            var steps = try await run.plan(folders: ProductsFolder(products).productFolders)
            for index in steps.indices { steps[index] = await run.apply(steps[index]) }
            XCTAssertFalse(steps.contains(where: \.isUnresolved), "\(spelling): \(steps.map { $0.error ?? $0.detail })")
            if spelling != "http://127.0.0.1:\(port)" { XCTAssertEqual(steps.map(\.action), [.unchanged], spelling) }
        }
        let count = await server.products.count
        XCTAssertEqual(count, 1, "one listing, whatever the spelling")
    }

    /// A record of several servers names each, as one server whatever the spelling: the preview asks
    /// which to compare with.
    func testARecordNamesEachOfItsServers() throws {
        try FileManager.default.createDirectory(atPath: products, withIntermediateDirectories: true)
        let record: [String: Any] = ["entries": [
            "http://127.0.0.1:9|lamp": ["state": "registered", "productID": 1, "at": "2026-11-01T00:00:00Z"],
            "https://openmarket.yagom-academy.kr|lamp": ["state": "registered", "productID": 2, "at": "2026-11-01T00:00:00Z"],
        ]]
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: products + "/" + PublishLedger.fileName))
        XCTAssertEqual(try PublishLedger.load(from: products).servers.sorted(), ["http://localhost:9", "https://openmarket.yagom-academy.kr"])
    }

    func testADryRunWritesNoRecordAndARealRunRegistersEachFolder() async throws {
        try await start(.openmarket)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        let dry = try await publish { $0.dryRun = true }
        XCTAssertEqual(dry.map(\.action), [.register, .register])
        XCTAssertFalse(FileManager.default.fileExists(atPath: products + "/" + PublishLedger.fileName), "a dry run writes no record")
        let sent = await server.requestCount
        XCTAssertEqual(sent, 0)
        let published = try await publish()
        XCTAssertEqual(published.map(\.action), [.register, .register])
        XCTAssertEqual(published.map(\.result), [.done, .done])
        XCTAssertEqual(Set(published.compactMap(\.productID)).count, 2)
    }

    /// After a listing is deleted, publishing does not call it unchanged: deleting with the products
    /// folder forgets it in the record; deleted elsewhere, publishing hears the 404 and registers the
    /// folder again.
    func testADeletedListingIsRegisteredAgain() async throws {
        try await start(.marketTraining)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"])
        _ = try await publish()
        let first = try await onlyID()
        let deleted = try await ListingDeletion(client: client, credentials: Self.vendor, productsFolder: products).delete(first)
        XCTAssertNil(deleted.error)
        XCTAssertEqual(deleted.forgotten, ["lamp"])
        let again = try await publish()
        XCTAssertEqual(again.map(\.action), [.register])
        XCTAssertEqual(again.map(\.result), [.done])
        let second = try await onlyID()
        XCTAssertNotEqual(second, first)

        // Deleted elsewhere (the web, another tool): the record still names it; an hour later,
        // publishing asks the server, hears 404 and registers the folder again.
        try await client.delete(id: second, credentials: Self.vendor)
        let path = products + "/" + PublishLedger.fileName
        let ledger = try ledgerText()
        let backdated = try NSRegularExpression(pattern: #""at" : "[^"]+""#)
            .stringByReplacingMatches(in: ledger, range: NSRange(ledger.startIndex..., in: ledger), withTemplate: #""at" : "2026-01-01T00:00:00Z""#)
        try backdated.write(toFile: path, atomically: true, encoding: .utf8)
        let found = try await publish()
        XCTAssertEqual(found.map(\.action), [.register])
        XCTAssertEqual(found.map(\.result), [.done])
        XCTAssertTrue(found[0].detail.contains("product \(second) is gone from the server: register again"), found[0].detail)
        let third = try await onlyID()
        XCTAssertNotEqual(third, second)
        let rerun = try await plan()
        XCTAssertEqual(rerun.map(\.action), [.unchanged])
    }

    /// A listing whose folder is gone is reported, not a failure; deleting orphans deletes it and
    /// removes it from the record.
    func testOrphansAreReportedAndDeletedOnlyWhenAsked() async throws {
        try await start(.marketTraining)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        _ = try await publish()
        try FileManager.default.removeItem(atPath: products + "/b")
        let reported = try await publish()
        XCTAssertEqual(reported.map(\.action), [.unchanged, .orphaned])
        XCTAssertFalse(reported.contains(where: \.isUnresolved), "an orphan is information, not a failure")
        XCTAssertTrue(reported.step("b")?.detail.contains("--delete-orphans") == true, "\(reported.map(\.detail))")
        var count = await server.products.count
        XCTAssertEqual(count, 2)

        let deleted = try await publish { $0.deleteOrphans = true }
        XCTAssertEqual(deleted.step("b")?.action, .deleteOrphan)
        XCTAssertEqual(deleted.step("b")?.result, .done)
        count = await server.products.count
        XCTAssertEqual(count, 1)
        let ledger = try ledgerText()
        XCTAssertFalse(ledger.contains("|b\""), "the deleted listing left the record: \(ledger)")
        let rerun = try await plan()
        XCTAssertEqual(rerun.map(\.action), [.unchanged])
    }

    /// A record from before publishing compared anything (no record of what was sent): the listing is
    /// taken as it is, recorded once, and compared from then on.
    func testARecordWithoutWhatWasSentIsRecordedOnce() async throws {
        try await start(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
        _ = try await publish()
        let path = products + "/" + PublishLedger.fileName
        var ledger = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var entries = try XCTUnwrap(ledger["entries"] as? [String: [String: Any]])
        for key in entries.keys { entries[key] = entries[key]?.filter { ["state", "productID", "at"].contains($0.key) } }
        ledger["entries"] = entries
        try JSONSerialization.data(withJSONObject: ledger).write(to: URL(fileURLWithPath: path))
        let sent = await server.received.filter { $0.method != "GET" }.count

        let recorded = try await publish()
        XCTAssertEqual(recorded.map(\.action), [.unchanged])
        XCTAssertEqual(recorded.map(\.result), [.done])
        XCTAssertTrue(recorded[0].detail.contains("published by an older version: record what the folder holds now"), recorded[0].detail)
        try Self.mug(price: 7000).write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let planned = try await plan { $0.dryRun = true }
        XCTAssertEqual(planned.first?.changes, [FieldChange(field: "price", from: "₩9,000", to: "₩7,000")])
        let after = await server.received.filter { $0.method != "GET" }.count
        XCTAssertEqual(after, sent, "recording an old listing sends nothing")
    }

    private static func mug(price: Int) -> String {
        #"{"name":"Ceramic mug","description":"Hand-thrown, holds 350 ml.","price":\#(price),"currency":"KRW","stock":2}"#
    }

    private func onlyID() async throws -> Int {
        let ids = await server.products.keys
        XCTAssertEqual(ids.count, 1)
        return try XCTUnwrap(ids.first)
    }
}

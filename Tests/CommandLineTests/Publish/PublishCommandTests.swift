import Foundation
import ImagePipeline
import MarketUploader
import TestSupport
import XCTest

/// `publish` as a seller runs it: the plan as a table under the server as typed, a line per step
/// carried out, each warning and each failure printed once with its folder, `--json`, the flags,
/// the question before deleting, and exit status 1 while the server is not in line with the folders.
/// What publishing does is tested in process (`PublishingTests`).
final class PublishCommandTests: CommandLineTestCase {
    private func steps(_ result: CommandLineTool.Result) throws -> [[String: Any]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], result.stdout + result.stderr)
    }

    private func productIDs() async -> [Int] {
        await server.products.keys.sorted()
    }

    /// A second publish of a products folder while one runs stops before planning, saying why, and
    /// sends nothing: both would plan the same new folder as a register.
    func testAPublishWhileAnotherRunsStopsAndSendsNothing() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        do {
            let running = try OutputLock(folder: products)
            let second = try tool(["publish", products])
            XCTAssertEqual(second.status, 1, second.stderr)
            XCTAssertTrue(second.stderr.contains("another publish or register is using \(products) now"), second.stderr)
            let received = await server.received.count
            XCTAssertEqual(received, 0)
            withExtendedLifetime(running) {}
        }
        let after = try tool(["publish", products])
        XCTAssertEqual(after.status, 0, after.stderr)
        let ids = await productIDs()
        XCTAssertEqual(ids.count, 1)
    }

    func testThePlanOutcomesWarningsAndFailuresArePrintedOnceEach() async throws {
        _ = try await startServer(.openmarket)
        let mug = try productFolder("mug", photos: ["photos/DSCN0010.jpg", "photos/DSCN0010.jpg"])
        let stamp = try productFolder("stamp", photos: ["photos/DSCN0010.jpg"])
        try FileManager.default.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: products + "/linked", withDestinationPath: root + "/elsewhere")
        var spec = RenderSpec()
        (spec.width, spec.height) = (50, 50)
        try ImageRenderer(spec: spec).render(.file(Fixture.path("photos/jolla.jpg")), maxPixels: 100_000_000).data
            .write(to: URL(fileURLWithPath: stamp + "/IMG_2.jpg"))

        let first = try tool(["publish", products])
        XCTAssertEqual(first.status, 1, "a blocked product is not in line with its folder: \(first.stderr)")
        let ids = await productIDs()
        let id = try XCTUnwrap(ids.first)
        XCTAssertTrue(first.stdout.contains("Plan for \(baseURL.absoluteString) (openmarket):"), "the server as typed, not its record key: \(first.stdout)")
        XCTAssertTrue(first.stdout.contains("mug: registered product \(id)"), first.stdout)
        XCTAssertTrue(first.stdout.contains("IMG_2.jpg: only 50×38 pixels, too small to show a product"), first.stdout)
        XCTAssertTrue(first.stdout.contains("Plan: 1 to register, 1 blocked; the rest done."), "blocked is not also counted as failed: \(first.stdout)")
        XCTAssertFalse(first.stderr.contains("too small"), "named once, in the plan: \(first.stderr)")
        XCTAssertEqual(first.stderr.components(separatedBy: "warning: mug: IMG_2.jpg is the same photo as IMG_1.jpg; only IMG_1.jpg is uploaded").count - 1, 1,
                       first.stderr)
        XCTAssertTrue(first.stderr.contains("warning: linked: is a link to"), "the products folder's own: \(first.stderr)")

        let allowed = try tool(["publish", products, "--allow-small"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains("stamp: registered product"), allowed.stdout)
        XCTAssertEqual(allowed.stderr.components(separatedBy: "warning: stamp: IMG_2.jpg: only 50×38 pixels").count - 1, 1, "named once: \(allowed.stderr)")

        try #"{"name":"Product mug","description":"A fine product called mug.","price":8000,"currency":"KRW","stock":2}"#
            .write(toFile: mug + "/product.json", atomically: true, encoding: .utf8)
        let edited = try tool(["publish", products, "--allow-small"])
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertTrue(edited.stdout.contains("mug: edited product \(id): price"), edited.stdout)
        XCTAssertTrue(edited.stdout.contains("Plan: 1 to edit, 1 unchanged; done."), edited.stdout)

        // The server fails cup's register (nothing listed) and lists lamp's but points its answer away.
        _ = try productFolder("cup", photos: ["photos/jolla.jpg"])
        _ = try productFolder("lamp", photos: ["photos/flowers.jpeg"])
        await server.arm(.status(500, body: #"{"code":500,"message":"boom"}"#), for: "POST")
        await server.arm(.redirect(303, location: "http://127.0.0.1:9/api/products/1", acting: true), for: "POST")
        let failed = try tool(["publish", products, "--allow-small"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("error: cup: ") && failed.stderr.contains("it is pending: the next run looks for the listing"), failed.stderr)
        XCTAssertFalse(failed.stderr.contains("try again later"), failed.stderr)
        let pending = try tool(["publish", products, "--allow-small"])
        XCTAssertEqual(pending.status, 1)
        let listings = await productIDs()
        let lamp = try XCTUnwrap(listings.last)
        XCTAssertTrue(pending.stdout.contains("lamp: adopted product \(lamp)"), pending.stdout)
        XCTAssertTrue(pending.stdout.contains("no listing on the server matches") && pending.stdout.contains("--resend-pending"), pending.stdout)
        XCTAssertFalse(pending.stderr.contains("no listing on the server matches"), "named once, in the plan: \(pending.stderr)")
        try backdateRecord()
        let resent = try tool(["publish", products, "--allow-small", "--resend-pending"])
        XCTAssertEqual(resent.status, 0, resent.stderr)
        XCTAssertTrue(resent.stdout.contains("cup: registered product"), resent.stdout)
    }

    func testJSONIsTheStepsAndADryRunWritesNothing() async throws {
        _ = try await startServer(.openmarket)
        let a = try productFolder("a", photos: ["photos/jolla.jpg"])
        let b = try productFolder("b", photos: ["photos/2569067123_aca715a2ee_o.jpg"])
        try DegradedPhoto.make(from: "photos/DSCN0010.jpg", to: b + "/IMG_2.jpg", .blur(sigma: 2))

        let dry = try tool(["publish", products, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: products + "/.openmarket-published.json"), "a dry run writes no record")
        let strict = try tool(["publish", products, "--dry-run", "--json", "--strict"])
        XCTAssertEqual(strict.status, 1, strict.stderr)
        let planned = try steps(strict)
        XCTAssertEqual(planned.map { $0["action"] as? String }, ["register", "blocked"])
        XCTAssertEqual(planned.map { $0["result"] as? String }, ["planned", "failed"])
        XCTAssertTrue((planned[1]["detail"] as? String)?.contains("IMG_2.jpg: looks blurry") == true, "\(planned)")
        let sent = await server.requestCount
        XCTAssertEqual(sent, 0)

        let published = try tool(["publish", products, "--json"])
        XCTAssertEqual(published.status, 0, published.stderr)
        let outcomes = try steps(published)
        XCTAssertEqual(outcomes.map { $0["folder"] as? String }, ["a", "b"])
        XCTAssertEqual(outcomes.map { $0["action"] as? String }, ["register", "register"])
        XCTAssertEqual(outcomes.map { $0["result"] as? String }, ["done", "done"])
        XCTAssertEqual(Set(outcomes.compactMap { $0["productID"] as? Int }).count, 2)
        XCTAssertTrue((outcomes[1]["warnings"] as? [String])?.contains { $0.hasPrefix("IMG_2.jpg: looks blurry") } == true, "\(outcomes)")
        XCTAssertTrue(published.stderr.contains("warning: b: IMG_2.jpg: looks blurry"), published.stderr)

        try #"{"name":"Product a","description":"A fine product called a.","price":8000,"currency":"KRW","stock":2}"#
            .write(toFile: a + "/product.json", atomically: true, encoding: .utf8)
        let edit = try steps(try tool(["publish", products, "--dry-run", "--json"]))
        XCTAssertEqual(edit.first?["action"] as? String, "edit")
        XCTAssertEqual(edit.first?["productID"] as? Int, outcomes.first?["productID"] as? Int)
        XCTAssertEqual(edit.first?["changes"] as? [[String: String]], [["field": "price", "from": "₩9,000", "to": "₩8,000"]])
    }

    func testTheServerAdoptAndOrphanFlagsAreCheckedAndDeletingOrphansAsksFirst() async throws {
        _ = try await startServer(.openmarket)
        let a = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        _ = try productFolder("b", photos: ["photos/DSCN0010.jpg"])
        let port = try XCTUnwrap(baseURL.port)
        for server in ["http://127.0.0.1:\(port)", "http://localhost:\(port)/", "HTTP://LOCALHOST:\(port)//"] {
            let result = try CommandLineTool.run(["publish", products, "--server", server, "--dialect", "openmarket", "--cache", root + "/cache"]
                                                 + (server.hasPrefix("HTTP") ? ["--dry-run"] : []),
                                                 environment: ["OPENMARKET_IDENTIFIER": OpenMarketTestServer.identifier,
                                                               "OPENMARKET_SECRET": OpenMarketTestServer.vendorSecret])
            XCTAssertEqual(result.status, 0, "\(server): \(result.stderr)")
            if server.hasPrefix("HTTP") { XCTAssertTrue(result.stdout.contains("Plan: 2 unchanged;"), "one record, whatever the spelling: \(result.stdout)") }
        }
        var listed = await productIDs().count
        XCTAssertEqual(listed, 2, "one listing per folder, whatever the spelling")
        XCTAssertEqual(try tool(["publish", products, "--adopt", "a=x"]).status, 2)
        let unknown = try tool(["publish", products, "--adopt", "nosuch=101"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("--adopt nosuch=101:") && unknown.stderr.contains("no product folder nosuch"), unknown.stderr)
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        let empty = try tool(["publish", root + "/empty"])
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("has no product folders with photos"), empty.stderr)

        try FileManager.default.removeItem(atPath: products + "/b")
        let reported = try tool(["publish", products])
        XCTAssertEqual(reported.status, 0, "an orphan is information, not a failure: \(reported.stderr)")
        XCTAssertTrue(reported.stdout.contains("orphaned") && reported.stdout.contains("--delete-orphans"), reported.stdout)
        let unconfirmed = try tool(["publish", products, "--delete-orphans"])
        XCTAssertEqual(unconfirmed.status, 1)
        XCTAssertTrue(unconfirmed.stderr.contains("not deleted: confirm on a terminal, or pass --yes"), unconfirmed.stderr)
        listed = await productIDs().count
        XCTAssertEqual(listed, 2)
        let deleted = try tool(["publish", products, "--delete-orphans", "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        listed = await productIDs().count
        XCTAssertEqual(listed, 1)

        // The commands keep publish's record: a folder registered is one listing, a stock changed with
        // edit is read back from the server and put back, a renamed folder keeps its listing.
        let c = try productFolder("c", photos: ["photos/jolla.jpg"])
        let registered = try tool(["register", c])
        XCTAssertEqual(registered.status, 0, registered.stderr)
        let again = try tool(["register", c])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("c is already listed as product"), again.stderr)
        let ids = await productIDs()
        let aID = try XCTUnwrap(ids.first)
        XCTAssertEqual(try tool(["edit", String(aID), "--stock", "1", "--products", products]).status, 0)
        try FileManager.default.moveItem(atPath: c, toPath: products + "/cup")
        let synced = try tool(["publish", products])
        XCTAssertEqual(synced.status, 0, synced.stderr)
        XCTAssertTrue(synced.stdout.contains("Read what the server holds: 1 list page (1 request)"), synced.stdout)
        XCTAssertTrue(synced.stdout.contains("stock 1 on the server, 2 in product.json"), synced.stdout)
        XCTAssertTrue(synced.stdout.contains("renamed from c (the same photos)"), synced.stdout)
        XCTAssertTrue(synced.stdout.contains("Plan: 1 to edit, 1 renamed, 1 unchanged; done."), synced.stdout)
        listed = await productIDs().count
        XCTAssertEqual(listed, 2)

        try Self.fixture("orientation/Landscape_6.jpg").write(to: URL(fileURLWithPath: a + "/IMG_1.jpg"))
        let recreate = try tool(["publish", products, "--dry-run", "--recreate"])
        XCTAssertEqual(recreate.status, 0, recreate.stderr)
        XCTAssertTrue(recreate.stdout.contains("Read what the server holds: 1 list page (1 request)"), "a dry run reads the server too: \(recreate.stdout)")
        XCTAssertTrue(recreate.stdout.contains("photos changed: register the new version"), recreate.stdout)
    }
}

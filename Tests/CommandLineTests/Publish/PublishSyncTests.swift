import Foundation
import MarketUploader
import TestSupport
import XCTest

/// `publish` as the command that keeps a server in line with the products folder, in every dialect:
/// the plan names exactly what changed, applying it sends only that, and a rerun sends and writes
/// nothing.
final class PublishSyncTests: CommandLineTestCase {
    static func mug(price: Int, stock: Int = 2) -> String {
        #"{"name":"Ceramic mug","description":"Hand-thrown, holds 350 ml.","price":\#(price),"currency":"KRW","stock":\#(stock)}"#
    }

    func steps(_ result: CommandLineTool.Result) throws -> [[String: Any]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], result.stdout + result.stderr)
    }

    /// Path → (modification time, inode) of every file under the test folder.
    func fileStamps() throws -> [String: String] {
        var stamps: [String: String] = [:]
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + relative)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            stamps[relative] = "\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) \(attributes[.systemFileNumber] ?? 0)"
        }
        return stamps
    }

    func testAChangedPriceIsPlannedAsOneEditAndSentAlone() async throws {
        for dialect in Dialect.allCases {
            _ = try await startServer(dialect)
            let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
            XCTAssertEqual(try tool(["publish", products], dialect: dialect).status, 0)
            let id = try await XCTUnwrapAsync(server.products.keys.first)
            let registered = try await XCTUnwrapAsync(server.products[id])

            try Self.mug(price: 8000).write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
            let sentBefore = await server.requestCount
            let plan = try tool(["publish", products, "--dry-run", "--json"], dialect: dialect)
            XCTAssertEqual(plan.status, 0, plan.stderr)
            let planned = try steps(plan)
            XCTAssertEqual(planned.count, 1)
            XCTAssertEqual(planned.first?["action"] as? String, "edit", "\(dialect)")
            XCTAssertEqual(planned.first?["productID"] as? Int, id)
            XCTAssertEqual(planned.first?["changes"] as? [[String: String]], [["field": "price", "from": "₩9,000", "to": "₩8,000"]])
            var sent = await server.requestCount
            XCTAssertEqual(sent, sentBefore, "\(dialect): a dry run sends nothing")

            let applied = try tool(["publish", products], dialect: dialect)
            XCTAssertEqual(applied.status, 0, applied.stderr)
            XCTAssertTrue(applied.stdout.contains("mug: edited product \(id): price"), applied.stdout)
            let patch = try await XCTUnwrapAsync(server.lastRequest)
            XCTAssertEqual(patch.method, "PATCH")
            if dialect == .items {
                XCTAssertEqual(patch.parts.compactMap(\.name).sorted(), ["password", "price"], "only the changed field")
                XCTAssertTrue(patch.parts.allSatisfy { $0.filename == nil }, "no images when only a field changed")
            } else {
                let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: patch.body) as? [String: Any])
                XCTAssertEqual(body.keys.sorted(), ["price", "secret"], "only the changed field")
            }
            let edited = try await XCTUnwrapAsync(server.products[id])
            XCTAssertEqual(Double(edited.fields["price"] ?? ""), 8000)
            XCTAssertEqual(edited.fields.filter { $0.key != "price" }, registered.fields.filter { $0.key != "price" }, "nothing else changed")
            XCTAssertEqual(edited.images.map(\.data), registered.images.map(\.data))

            sent = await server.requestCount
            let stamps = try fileStamps()
            let rerun = try tool(["publish", products], dialect: dialect)
            XCTAssertEqual(rerun.status, 0, rerun.stderr)
            XCTAssertTrue(rerun.stdout.contains("Plan: 1 unchanged; done."), rerun.stdout)
            let sentAfter = await server.requestCount
            XCTAssertEqual(sentAfter, sent, "\(dialect): an unchanged rerun sends nothing")
            XCTAssertEqual(try fileStamps(), stamps, "\(dialect): an unchanged rerun rewrites no file")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    func testASwappedPhotoReplacesTheSetOnItemsAndIsRecreatedElsewhere() async throws {
        for dialect in Dialect.allCases {
            _ = try await startServer(dialect)
            let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
            XCTAssertEqual(try tool(["publish", products], dialect: dialect).status, 0)
            let old = try await XCTUnwrapAsync(server.products.values.first)
            try FileManager.default.removeItem(atPath: folder + "/IMG_1.jpg")
            try Self.fixture("orientation/Landscape_6.jpg").write(to: URL(fileURLWithPath: folder + "/IMG_1.jpg"))
            let posts = await server.received.filter { $0.method != "GET" }.count

            let plan = try steps(try tool(["publish", products, "--dry-run", "--json"], dialect: dialect))
            XCTAssertEqual(plan.first?["action"] as? String, dialect == .items ? "replace-images" : "blocked", "\(dialect): \(plan)")
            if dialect != .items {
                let blocked = try tool(["publish", products], dialect: dialect)
                XCTAssertEqual(blocked.status, 1, "a blocked product is not in line with its folder")
                XCTAssertTrue(blocked.stdout.contains("cannot change a product's images: --recreate registers the new version"), blocked.stdout)
                let writes = await server.received.filter { $0.method != "GET" }.count
                XCTAssertEqual(writes, posts, "\(dialect): blocked sends nothing")
            }
            let applied = try tool(["publish", products] + (dialect == .items ? [] : ["--recreate"]), dialect: dialect)
            XCTAssertEqual(applied.status, 0, applied.stdout + applied.stderr)
            let listings = await server.products
            XCTAssertEqual(listings.count, 1, "\(dialect): exactly one listing")
            let listing = try XCTUnwrap(listings.values.first)
            XCTAssertEqual(listing.id == old.id, dialect == .items, "\(dialect): G1 keeps the id; G2/G3 register anew")
            let image = try XCTUnwrap(listing.images.first?.data)
            XCTAssertNotEqual(image, old.images.first?.data, "the server holds the new photo")
            XCTAssertLessThanOrEqual(image.count, 300_000)
            let path = root + "/received-\(dialect.rawValue).jpg"
            try image.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try Exiftool.metadata(in: [path]).values.flatMap { $0 }, [], "\(dialect): no metadata reached the server")
            let rerun = try tool(["publish", products], dialect: dialect)
            XCTAssertTrue(rerun.stdout.contains("Plan: 1 unchanged; done."), rerun.stdout)
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// Two listings match the unanswered register: neither is adopted and nothing is registered, even
    /// when the seller asks for a resend.
    func testAmbiguousAdoptionStaysPending() async throws {
        let client = try await startServer(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        try await publishKilledDuringRegister(.openmarket)
        let listed = await server.products.values.first
        let draft = try XCTUnwrap(listed).fields
        _ = try await client.register(ProductDraft(name: draft["name"] ?? "", description: draft["description"] ?? "",
                                                   price: Double(draft["price"] ?? "") ?? 0, stock: 2),
                                      images: [try Self.jpeg()], credentials: Self.vendor)
        let sent = await server.requestCount
        let dry = try tool(["publish", products, "--dry-run"])
        XCTAssertTrue(dry.stdout.contains("pending") && dry.stdout.contains("a real run looks it up"), dry.stdout)
        let afterDryRun = await server.requestCount
        XCTAssertEqual(afterDryRun, sent, "a dry run does not even look")

        for arguments in [[], ["--resend-pending"]] {
            let rerun = try tool(["publish", products] + arguments)
            XCTAssertEqual(rerun.status, 1)
            XCTAssertTrue(rerun.stdout.contains("2 listings ("), "named once, in the plan: \(rerun.stdout)")
        }
        let listings = await server.products.count
        XCTAssertEqual(listings, 2, "nothing registered a third time")
    }

    func testOrphansAreReportedAndDeletedOnlyWhenConfirmed() async throws {
        _ = try await startServer(.marketTraining)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        XCTAssertEqual(try tool(["publish", products], dialect: .marketTraining).status, 0)
        try FileManager.default.removeItem(atPath: products + "/b")
        let reported = try tool(["publish", products], dialect: .marketTraining)
        XCTAssertEqual(reported.status, 0, "an orphan is information, not a failure: \(reported.stderr)")
        XCTAssertTrue(reported.stdout.contains("orphaned") && reported.stdout.contains("--delete-orphans"), reported.stdout)

        let unconfirmed = try tool(["publish", products, "--delete-orphans"], dialect: .marketTraining)
        XCTAssertEqual(unconfirmed.status, 1)
        XCTAssertTrue(unconfirmed.stderr.contains("not deleted: confirm on a terminal, or pass --yes"), unconfirmed.stderr)
        var count = await server.products.count
        XCTAssertEqual(count, 2)

        let deleted = try tool(["publish", products, "--delete-orphans", "--yes"], dialect: .marketTraining)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        count = await server.products.count
        XCTAssertEqual(count, 1)
        let ledger = try String(contentsOfFile: products + "/.openmarket-published.json", encoding: .utf8)
        XCTAssertFalse(ledger.contains("|b\""), "the deleted listing left the ledger: \(ledger)")
        XCTAssertTrue(try tool(["publish", products], dialect: .marketTraining).stdout.contains("Plan: 1 unchanged; done."))
    }

    /// A ledger from before publish compared anything (no record of what was sent): the listing is
    /// taken as it is, recorded once, and compared from then on.
    func testALedgerWithoutARecordOfWhatWasSentIsRecordedOnce() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
        XCTAssertEqual(try tool(["publish", products]).status, 0)
        let path = products + "/.openmarket-published.json"
        var ledger = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var entries = try XCTUnwrap(ledger["entries"] as? [String: [String: Any]])
        for key in entries.keys { entries[key] = entries[key]?.filter { ["state", "productID", "at"].contains($0.key) } }
        ledger["entries"] = entries
        try JSONSerialization.data(withJSONObject: ledger).write(to: URL(fileURLWithPath: path))
        let sent = await server.requestCount

        let adopted = try tool(["publish", products])
        XCTAssertEqual(adopted.status, 0, adopted.stderr)
        XCTAssertTrue(adopted.stdout.contains("published by an older version: record what the folder holds now"), adopted.stdout)
        XCTAssertTrue(adopted.stdout.contains("Plan for http://127.0.0.1:\(baseURL.port ?? 0) ("), "the server as typed, not its record key: \(adopted.stdout)")
        try Self.mug(price: 7000).write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let plan = try steps(try tool(["publish", products, "--dry-run", "--json"]))
        XCTAssertEqual(plan.first?["changes"] as? [[String: String]], [["field": "price", "from": "₩9,000", "to": "₩7,000"]])
        let after = await server.requestCount
        XCTAssertEqual(after, sent, "recording an old listing sends nothing")
    }

    func testListShowAndDeleteInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let credentials = credentials(for: dialect)
            let mug = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: credentials)
            var cup = Self.draft
            cup.name = "Tea cup"
            cup.stock = 0
            let teaCup = try await client.register(cup, images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: credentials)

            let listed = try tool(["list", "--json"], dialect: dialect)
            XCTAssertEqual(listed.status, 0, listed.stderr)
            let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
            XCTAssertEqual((page["products"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }, [teaCup.id, mug.id], "newest first")
            var korean = Self.draft
            korean.name = "도자기 머그컵"
            let koreanMug = try await client.register(korean, images: [try Self.jpeg()], credentials: credentials)
            let table = try tool(["list"], dialect: dialect).stdout
            XCTAssertTrue(table.contains("Tea cup") && table.contains("sold out") && table.contains("(was ₩12,000)"), table)
            // Columns line up as a terminal shows them: Hangul takes two columns (East Asian Width W).
            func columns(_ text: Substring) -> Int { text.unicodeScalars.reduce(0) { $0 + ((0xAC00...0xD7A3).contains($1.value) ? 2 : 1) } }
            let lines = table.split(separator: "\n").filter { $0.contains("₩") || $0.contains("PRICE") }
            let starts = lines.map { line in columns(line[..<(line.range(of: "₩") ?? line.range(of: "PRICE")!).lowerBound]) }
            XCTAssertEqual(Set(starts).count, 1, "the price column starts at one display column:\n\(table)")
            let searched = try tool(["list", "--search", "TEA", "--json"], dialect: dialect).stdout
            let found = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(searched.utf8)) as? [String: Any])["products"] as? [[String: Any]]
            XCTAssertEqual(found?.compactMap { $0["id"] as? Int }, [teaCup.id], "\(dialect): search by name, any case")
            if dialect == .items {
                XCTAssertEqual(try tool(["list", "--mine"], dialect: dialect).status, 2, "the items server has no vendors")
            } else {
                XCTAssertTrue(try tool(["list", "--mine", "--vendor-id", "7"], dialect: dialect).stdout.contains("Tea cup"))
                XCTAssertFalse(try tool(["list", "--mine", "--vendor-id", "8"], dialect: dialect).stdout.contains("Tea cup"))
            }

            let shown = try tool(["show", String(teaCup.id)], dialect: dialect)
            XCTAssertEqual(shown.status, 0, shown.stderr)
            XCTAssertTrue(shown.stdout.contains(baseURL.absoluteString + "/images/\(teaCup.id)/1.jpg"), shown.stdout)
            let missing = try tool(["show", "99999"], dialect: dialect)
            XCTAssertEqual(missing.status, 1)
            XCTAssertTrue(missing.stderr.contains("not found"), missing.stderr)

            let before = await server.requestCount
            XCTAssertEqual(try tool(["delete", String(mug.id)], dialect: dialect).status, 2, "no terminal to ask on and no --yes")
            let dry = try tool(["delete", String(mug.id), "--dry-run"], dialect: dialect)
            XCTAssertEqual(dry.status, 0, dry.stderr)
            XCTAssertTrue(dry.stdout.contains("DELETE ") && dry.stdout.contains("<redacted>"), dry.stdout)
            let afterDry = await server.requestCount
            XCTAssertEqual(afterDry, before, "refusing and dry runs send nothing")
            let wrong = try tool(["delete", String(mug.id), "--yes", dialect == .items ? "--password" : "--secret", "wrong-secret"], dialect: dialect)
            XCTAssertEqual(wrong.status, 1)
            XCTAssertTrue(wrong.stderr.contains("refused the credentials"), wrong.stderr)
            XCTAssertFalse(wrong.stderr.contains("wrong-secret"), wrong.stderr)
            var remaining = await server.products.keys.sorted()
            XCTAssertEqual(remaining, [mug.id, teaCup.id, koreanMug.id])
            let deleted = try tool(["delete", String(mug.id), "--yes"], dialect: dialect)
            XCTAssertEqual(deleted.status, 0, deleted.stderr)
            remaining = await server.products.keys.sorted()
            XCTAssertEqual(remaining, [teaCup.id, koreanMug.id], "\(dialect)")
        }
    }
}

import Foundation
import MarketUploader
import TestSupport
import XCTest

/// `list`, `show`, `edit` and `delete` as a seller runs them: the table lined up as a terminal shows
/// it, `--json`, the flags that pick products, bad items named on stderr with exit status 1, the
/// question before deleting, and the publish record told what was deleted. What the commands do is
/// tested in process (`ProductQueryTests`, `ProductSubmissionTests`, `ListingDeletionTests`).
final class UploaderCatalogueTests: CommandLineTestCase {
    private func json(_ result: CommandLineTool.Result) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
    }

    func testListShowEditAndDeletePrintWhatTheServerHoldsAndDeletingAsksFirst() async throws {
        let client = try await startServer(.openmarket)
        let mug = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        var cup = Self.draft
        (cup.name, cup.stock) = ("Tea cup", 0)
        let teaCup = try await client.register(cup, images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: Self.vendor)
        var korean = Self.draft
        korean.name = "도자기 머그컵"
        let koreanMug = try await client.register(korean, images: [try Self.jpeg()], credentials: Self.vendor)

        let table = try tool(["list"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("Tea cup") && table.stdout.contains("sold out") && table.stdout.contains("(was ₩12,000)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("page 1: 3 products"), table.stdout)
        // Columns line up as a terminal shows them: Hangul takes two columns (East Asian Width W).
        func columns(_ text: Substring) -> Int { text.unicodeScalars.reduce(0) { $0 + ((0xAC00...0xD7A3).contains($1.value) ? 2 : 1) } }
        let rows = table.stdout.split(separator: "\n").filter { $0.contains("₩") || $0.contains("PRICE") }
        let starts = rows.map { row in columns(row[..<(row.range(of: "₩") ?? row.range(of: "PRICE")!).lowerBound]) }
        XCTAssertEqual(Set(starts).count, 1, "the price column starts at one display column:\n\(table.stdout)")
        let listed = try json(try tool(["list", "--json"]))
        XCTAssertEqual((listed["products"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }, [koreanMug.id, teaCup.id, mug.id])
        XCTAssertEqual(listed["problems"] as? [String], [])
        let searched = try json(try tool(["list", "--search", "TEA", "--json"]))
        XCTAssertEqual((searched["products"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }, [teaCup.id])
        XCTAssertTrue(try tool(["list", "--mine", "--vendor-id", "7"]).stdout.contains("Tea cup"))
        XCTAssertFalse(try tool(["list", "--mine", "--vendor-id", "8"]).stdout.contains("Tea cup"))
        XCTAssertEqual(try tool(["list", "--mine"], dialect: .items).status, 2, "the items server has no vendors")

        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let bad = try tool(["list"])
        XCTAssertEqual(bad.status, 1, "some input was bad: \(bad.stderr)")
        XCTAssertTrue(bad.stdout.contains("Good mug") && bad.stdout.contains("Mug \\xFF"), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("page 1: 5 products") && bad.stdout.contains(#"abc\u{202E}dcba"#), bad.stdout)
        XCTAssertTrue(bad.stderr.contains("item 2 of the page left out: id 1.5") && bad.stderr.contains("product 4: its name"), bad.stderr)
        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let badJSON = try tool(["list", "--json"])
        XCTAssertEqual(badJSON.status, 1, badJSON.stderr)
        XCTAssertEqual((try json(badJSON)["products"] as? [[String: Any]])?.count, 5)
        XCTAssertEqual((try json(badJSON)["problems"] as? [String])?.count, 5)

        let shown = try tool(["show", String(teaCup.id)])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        for line in ["product \(teaCup.id): Tea cup", "price: ₩11,000 (was ₩12,000)", "stock: sold out", baseURL.absoluteString + "/images/\(teaCup.id)/1.jpg"] {
            XCTAssertTrue(shown.stdout.contains(line), "\(line) in:\n\(shown.stdout)")
        }
        XCTAssertEqual(try json(try tool(["show", String(teaCup.id), "--json"]))["id"] as? Int, teaCup.id)
        let missing = try tool(["show", "99999"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("not found"), missing.stderr)

        let edited = try tool(["edit", String(mug.id), "--price", "13000", "--sale-price", "12000"])
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertTrue(edited.stdout.contains("updated product \(mug.id): Ceramic mug"), edited.stdout)
        let price = await server.products[mug.id]?.fields["price"]
        XCTAssertEqual(price.flatMap(Double.init), 13000)

        let before = await server.requestCount
        XCTAssertEqual(try tool(["delete", String(mug.id)]).status, 2, "no terminal to ask on and no --yes")
        let dry = try tool(["delete", String(mug.id), "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("DELETE ") && dry.stdout.contains("<redacted>"), dry.stdout)
        let afterDry = await server.requestCount
        XCTAssertEqual(afterDry, before, "refusing and dry runs send nothing")
        try FileManager.default.createDirectory(atPath: products, withIntermediateDirectories: true)
        let record: [String: Any] = ["entries": ["\(baseURL.absoluteString)|lamp": ["state": "registered", "productID": mug.id, "at": "2026-11-01T00:00:00Z"]]]
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: products + "/.openmarket-published.json"))
        let deleted = try tool(["delete", String(mug.id), "--yes", "--products", products])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertTrue(deleted.stdout.contains("deleted product \(mug.id)"), deleted.stdout)
        XCTAssertTrue(deleted.stdout.contains("forgot product \(mug.id) in the publish record (lamp)"), deleted.stdout)
        let remaining = await server.products.keys.sorted()
        XCTAssertEqual(remaining, [teaCup.id, koreanMug.id])
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MarketUploader
import TestSupport
import XCTest

/// What a buyer pays is one number from `product.json` to the server's answer: the seller writes
/// `sale_price`, each dialect is sent what its server means by `discounted_price` (the test server
/// models G2/G3 as the real ones: the amount off, answered as `bargain_price`), and preview, the
/// plan, `show` and `list` all show the same price.
final class SalePriceTests: CommandLineTestCase {
    private static let lamp = #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":12000,"sale_price":10800,"stock":2}"#

    func testTheBuyersPriceAgreesFromPreviewToTheServerInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            _ = try await startServer(dialect)
            try? FileManager.default.removeItem(atPath: root + "/products")
            _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            let publish = try tool(["publish", root + "/products"], dialect: dialect)
            XCTAssertEqual(publish.status, 0, "\(dialect): \(publish.stderr)")
            XCTAssertTrue(publish.stdout.contains("1 photo at ₩10,800 (was ₩12,000)"), "\(dialect) plan: \(publish.stdout)")
            let id = try await onlyProductID()
            let answered = try await buyersPrice(id, dialect)
            XCTAssertEqual(answered, 10800, "\(dialect): the server's own answer")
            let show = try tool(["show", String(id)], dialect: dialect)
            XCTAssertTrue(show.stdout.contains("price: ₩10,800 (was ₩12,000)"), "\(dialect): \(show.stdout)")
            let list = try tool(["list"], dialect: dialect)
            XCTAssertTrue(list.stdout.contains("₩10,800 (was ₩12,000)"), "\(dialect): \(list.stdout)")
            await server.stop()
        }
        let preview = try startServiceProcess([root + "/products", "--cache", root + "/cache"], command: "preview")
        let page = String(decoding: try await preview.get("/").body, as: UTF8.self)
        XCTAssertTrue(page.contains("₩10,800") && page.contains("<s class=\"original\">₩12,000</s>"), page)
    }

    /// Changing the price alone keeps the sale price (G3 is sent a new amount off); removing the sale
    /// ends it (0 off).
    func testEditsKeepWhatABuyerPaysUntilTheSellerChangesIt() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        XCTAssertEqual(try tool(["publish", root + "/products"]).status, 0)
        let id = try await onlyProductID()

        try Self.lamp.replacingOccurrences(of: "12000", with: "13000").write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let repriced = try tool(["publish", root + "/products"])
        XCTAssertEqual(repriced.status, 0, repriced.stderr)
        XCTAssertTrue(repriced.stdout.contains("price ₩12,000 → ₩13,000"), repriced.stdout)
        var sent = try await lastJSON()
        XCTAssertEqual(sent, ["price": 13000, "discounted_price": 2200, "secret": OpenMarketTestServer.vendorSecret])
        var answered = try await buyersPrice(id, .openmarket)
        XCTAssertEqual(answered, 10800)

        try Self.lamp.replacingOccurrences(of: #","sale_price":10800"#, with: "").replacingOccurrences(of: "12000", with: "13000")
            .write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let ended = try tool(["publish", root + "/products"])
        XCTAssertTrue(ended.stdout.contains("sale_price ₩10,800 → none"), ended.stdout)
        sent = try await lastJSON()
        XCTAssertEqual(sent, ["price": 13000, "discounted_price": 0, "secret": OpenMarketTestServer.vendorSecret])
        answered = try await buyersPrice(id, .openmarket)
        XCTAssertEqual(answered, 13000)
    }

    /// A record written when `discounted_price` was sent as the seller wrote it cannot say what buyers
    /// pay: the next publish sends the prices again, and fixes a listing at a tenth of its price.
    func testARecordFromBeforeSalePriceIsResentNotTrusted() async throws {
        _ = try await startServer(.marketTraining)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        XCTAssertEqual(try tool(["publish", root + "/products"], dialect: .marketTraining).status, 0)
        let id = try await onlyProductID()
        // What an older version did: `discounted_price` 10800 sent as written, so buyers pay 1200.
        XCTAssertEqual(try tool(["edit", String(id), "--price", "12000", "--sale-price", "1200"], dialect: .marketTraining).status, 0)
        var answered = try await buyersPrice(id, .marketTraining)
        XCTAssertEqual(answered, 1200)
        let ledgerPath = root + "/products/.openmarket-published.json"
        let ledger = try String(contentsOfFile: ledgerPath, encoding: .utf8)
        XCTAssertTrue(ledger.contains("\"sale_price\" : 10800"), ledger)
        try ledger.replacingOccurrences(of: "\"sale_price\" : 10800", with: "\"discounted_price\" : 10800")
            .write(toFile: ledgerPath, atomically: true, encoding: .utf8)

        let rerun = try tool(["publish", root + "/products"], dialect: .marketTraining)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertTrue(rerun.stdout.contains("sale_price unknown → ₩10,800"), rerun.stdout)
        answered = try await buyersPrice(id, .marketTraining)
        XCTAssertEqual(answered, 10800)
        XCTAssertTrue(try tool(["publish", root + "/products"], dialect: .marketTraining).stdout.contains("1 unchanged"))
    }

    func testADeepDiscountIsWarnedAndAnAmbiguousEditIsRefused() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp.replacingOccurrences(of: "10800", with: "5000"))
        let dryRun = try tool(["publish", root + "/products", "--dry-run"])
        XCTAssertTrue(dryRun.stderr.contains("warning: lamp: sale_price ₩5,000 is 58% off the price ₩12,000"), dryRun.stderr)
        let json = try tool(["publish", root + "/products", "--dry-run", "--json"])
        XCTAssertTrue(json.stdout.contains("58% off"), json.stdout)

        let edit = try tool(["edit", "100", "--sale-price", "9000"])
        XCTAssertEqual(edit.status, 1)
        XCTAssertTrue(edit.stderr.contains("give the price with the sale price"), edit.stderr)
        let count = await server.requestCount
        XCTAssertEqual(count, 0, "nothing was sent")
    }

    private func onlyProductID() async throws -> Int {
        let ids = await server.products.keys
        XCTAssertEqual(ids.count, 1)
        return try XCTUnwrap(ids.first)
    }

    /// The JSON body of the last request the server received.
    private func lastJSON() async throws -> NSDictionary? {
        let body = await server.lastRequest?.body ?? Data()
        return try JSONSerialization.jsonObject(with: body) as? NSDictionary
    }

    /// What the server itself answers a buyer pays: `bargain_price` (G2/G3) or G1's `discounted_price`.
    private func buyersPrice(_ id: Int, _ dialect: Dialect) async throws -> Double? {
        let path = dialect == .items ? "item/\(id)" : "api/products/\(id)"
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent(path))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?[dialect == .items ? "discounted_price" : "bargain_price"] as? Double
    }
}

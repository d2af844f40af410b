import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// What a buyer pays is one number from `product.json` to the server's answer: the seller writes
/// `sale_price`, each dialect is sent what its server means by `discounted_price` (the test server
/// models G2/G3 as the real ones: the amount off, answered as `bargain_price`), and the plan and the
/// server's product as `show` and `list` word it all say the same price.
final class SalePriceTests: PublishingTestCase {
    private static let lamp = #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":12000,"sale_price":10800,"stock":2}"#

    func testTheBuyersPriceAgreesFromThePlanToTheServerInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            try? FileManager.default.removeItem(atPath: products)
            _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            let steps = try await publish()
            XCTAssertEqual(steps.map(\.result), [.done], "\(dialect): \(steps.map { $0.error ?? "" })")
            XCTAssertTrue(steps[0].detail.contains("1 photo at ₩10,800 (was ₩12,000)"), "\(dialect) plan: \(steps[0].detail)")
            let id = try await onlyProductID()
            let answered = try await buyersPrice(id, dialect)
            XCTAssertEqual(answered, 10800, "\(dialect): the server's own answer")
            let shown = try await client.product(id: id)
            XCTAssertEqual(ProductText.price(of: shown, dialect: dialect), "₩10,800 (was ₩12,000)", "\(dialect): as `show` words it")
            let listed = try await ProductQuery().fetch(from: client).products
            XCTAssertEqual(listed.map { ProductText.price(of: $0, dialect: dialect) }, ["₩10,800 (was ₩12,000)"], "\(dialect): as `list` words it")
            await server.stop()
        }
    }

    /// Changing the price alone keeps the sale price (G3 is sent a new amount off); removing the sale
    /// ends it (0 off).
    func testEditsKeepWhatABuyerPaysUntilTheSellerChangesIt() async throws {
        try await start(.openmarket)
        let folder = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        _ = try await publish()
        let id = try await onlyProductID()

        try Self.lamp.replacingOccurrences(of: "12000", with: "13000").write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let repriced = try await publish()
        XCTAssertEqual(repriced.map(\.result), [.done], "\(repriced.map { $0.error ?? "" })")
        XCTAssertTrue(repriced[0].detail.contains("price ₩12,000 on the server, ₩13,000 in product.json"), repriced[0].detail)
        var sent = try await lastJSON()
        XCTAssertEqual(sent, ["price": 13000, "discounted_price": 2200, "secret": OpenMarketTestServer.vendorSecret])
        var answered = try await buyersPrice(id, .openmarket)
        XCTAssertEqual(answered, 10800)

        try Self.lamp.replacingOccurrences(of: #","sale_price":10800"#, with: "").replacingOccurrences(of: "12000", with: "13000")
            .write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let ended = try await publish()
        XCTAssertTrue(ended[0].detail.contains("sale_price ₩10,800 on the server, none in product.json"), ended[0].detail)
        sent = try await lastJSON()
        XCTAssertEqual(sent, ["price": 13000, "discounted_price": 0, "secret": OpenMarketTestServer.vendorSecret])
        answered = try await buyersPrice(id, .openmarket)
        XCTAssertEqual(answered, 13000)
    }

    /// On items, where `discounted_price` is the price after the discount, an ended sale is sent as
    /// the price itself (0 would list it for nothing) and the next plan is unchanged; a USD sale on
    /// openmarket is sent a whole-cent amount off.
    func testAnEndedSaleOnItemsIsThePriceAndAnAmountOffIsWholeCents() async throws {
        try await start(.items)
        let folder = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        _ = try await publish()
        let id = try await onlyProductID()
        try Self.lamp.replacingOccurrences(of: #","sale_price":10800"#, with: "").write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        let ended = try await publish()
        XCTAssertEqual(ended.map(\.result), [.done], "\(ended.map { $0.error ?? "" })")
        let sent = await server.lastRequest?.parts.first { $0.name == "discounted_price" }.map { String(decoding: $0.body, as: UTF8.self) }
        XCTAssertEqual(sent, "12000")
        let answered = try await buyersPrice(id, .items)
        XCTAssertEqual(answered, 12000, "a buyer pays the price")
        let again = try await plan()
        XCTAssertEqual(again.map(\.action), [.unchanged], "\(again.map(\.detail))")

        try await start(.openmarket)
        try FileManager.default.removeItem(atPath: products)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"],
                              json: #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":39.99,"sale_price":29.99,"currency":"USD","stock":2}"#)
        _ = try await publish()
        let usd = try await onlyProductID()
        let stored = await server.products[usd]?.fields["discounted_price"]
        XCTAssertEqual(stored, "10.0")
        let buyers = try await buyersPrice(usd, .openmarket)
        XCTAssertEqual(try XCTUnwrap(buyers), 29.99, accuracy: 0.000001)
    }

    /// A record written when `discounted_price` was sent as the seller wrote it cannot say what buyers
    /// pay; the server can: the next publish reads a listing at a tenth of its price, and fixes it.
    func testARecordFromBeforeSalePriceIsResentNotTrusted() async throws {
        try await start(.marketTraining)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        _ = try await publish()
        let id = try await onlyProductID()
        // What an older version did: `discounted_price` 10800 sent as written, so buyers pay 1200.
        _ = try await ProductSubmission.edit(id: id, ProductChange(price: 12000, salePrice: 1200), newPhotos: [], photos: photoCache, client: client,
                                             credentials: Self.vendor).send()
        var answered = try await buyersPrice(id, .marketTraining)
        XCTAssertEqual(answered, 1200)
        let path = products + "/" + PublishLedger.fileName
        let ledger = try ledgerText()
        XCTAssertTrue(ledger.contains("\"sale_price\" : 10800"), ledger)
        try ledger.replacingOccurrences(of: "\"sale_price\" : 10800", with: "\"discounted_price\" : 10800").write(toFile: path, atomically: true, encoding: .utf8)

        let rerun = try await publish()
        XCTAssertEqual(rerun.map(\.result), [.done], "\(rerun.map { $0.error ?? "" })")
        XCTAssertTrue(rerun[0].detail.contains("sale_price ₩1,200 on the server, ₩10,800 in product.json"), rerun[0].detail)
        answered = try await buyersPrice(id, .marketTraining)
        XCTAssertEqual(answered, 10800)
        let again = try await plan()
        XCTAssertEqual(again.map(\.action), [.unchanged])
    }

    /// A sale deeper than half the price is a warning on the step that sends it; an edit of the sale
    /// price alone, which G3 could only send as an amount off an unknown price, is refused unsent.
    func testADeepDiscountIsWarnedAndAnAmbiguousEditIsRefused() async throws {
        try await start(.openmarket)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp.replacingOccurrences(of: "10800", with: "5000"))
        let planned = try await plan { $0.dryRun = true }
        XCTAssertTrue(planned[0].warnings.contains { $0.hasPrefix("sale_price ₩5,000 is 58% off the price ₩12,000") }, "\(planned[0].warnings)")

        do {
            _ = try ProductSubmission.edit(id: 100, ProductChange(salePrice: 9000), newPhotos: [], photos: photoCache, client: client,
                                           credentials: Self.vendor)
            XCTFail("a sale price without the price must be refused")
        } catch {
            XCTAssertTrue("\(error)".contains("give the price with the sale price"), "\(error)")
        }
        let count = await server.requestCount
        XCTAssertEqual(count, 0, "nothing was sent")
    }

    /// A server that leaves `bargain_price` stale after an edit: what a buyer pays is `price −
    /// discounted_price`, as the API defines it, in `show`'s and `list`'s words and in the plan, so
    /// another client's discount is seen, and the disagreement is said. The client took
    /// `bargain_price` on trust: the plan was "unchanged" for ever and `show` gave the old price.
    func testTheBuyersPriceIsTheAPIsDefinitionWhenTheServerLeavesBargainPriceStale() async throws {
        try await start(.openmarket)
        await server.keepBargainPriceOnEdit()
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        _ = try await publish()
        let id = try await onlyProductID()
        _ = try await client.edit(id: id, ProductChange(price: 12000, salePrice: 9000), credentials: credentials(for: .openmarket))
        let stale = try await buyersPrice(id, .openmarket)
        XCTAssertEqual(stale, 10800, "the server's own bargain_price, stale")
        let shown = try await client.product(id: id)
        XCTAssertEqual(ProductText.price(of: shown, dialect: .openmarket), "₩9,000 (was ₩12,000)")
        let disagreement = "the server's bargain_price ₩10,800 is not price − discounted_price (₩12,000 − ₩3,000 = ₩9,000); "
            + "a buyer is taken to pay ₩9,000, as the API defines it"
        XCTAssertEqual(Dialect.openmarket.priceDisagreement(of: shown), disagreement)
        let steps = try await plan()
        XCTAssertEqual(steps.map(\.action), [.edit], "\(steps.map(\.detail))")
        XCTAssertTrue(steps[0].detail.contains("sale_price ₩9,000 on the server, ₩10,800 in product.json"), steps[0].detail)
        XCTAssertTrue(steps[0].warnings.contains("product \(id): " + disagreement), "\(steps[0].warnings)")
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

import Foundation
import MarketUploader
import TestSupport
import XCTest

/// The libraries say what happened; the command line adds what to do in its own flags, exits 1 for
/// a failure and 2 for a usage error, and prints no "done" line for what was not done.
final class UploaderErrorAdviceTests: CommandLineTestCase {
    func testErrorsSayWhichFlagFixesThem() async throws {
        let client = try await startServer(.openmarket)
        let other = try OpenMarketTestServer(dialect: .openmarket)
        let otherURL = try await other.start()
        addTeardownBlock { await other.stop() }
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)

        await server.arm(.redirect(307, location: otherURL.absoluteString + "/api/products/\(product.id)", acting: false))
        let edit = try tool(["edit", String(product.id), "--price", "11000"])
        XCTAssertEqual(edit.status, 1, edit.stdout)
        XCTAssertFalse(edit.stdout.contains("updated product"), edit.stdout)
        XCTAssertTrue(edit.stderr.contains("redirect (307)") && edit.stderr.contains("use --server \(otherURL.absoluteString)"), edit.stderr)
        await server.arm(.redirect(308, location: otherURL.absoluteString + "/api/products/\(product.id)/archived", acting: false))
        let delete = try tool(["delete", String(product.id), "--yes"])
        XCTAssertEqual(delete.status, 1, delete.stdout)
        XCTAssertFalse(delete.stdout.contains("deleted product"), delete.stdout)
        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0)

        let wrong = try tool(["delete", String(product.id), "--yes", "--secret", "wrong-secret"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("refused the credentials") && wrong.stderr.contains("check --identifier/--secret"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("wrong-secret"), wrong.stderr)
        let listed = await server.products.count
        XCTAssertEqual(listed, 1)

        let attach = try tool(["attach", "101", Fixture.path("photos/DSCN0010.jpg")])
        XCTAssertEqual(attach.status, 1)
        XCTAssertTrue(attach.stderr.contains("cannot change a product's images"), attach.stderr)
        XCTAssertTrue(attach.stderr.contains("(market-images edit 101 --thumbnail-id N)"), "attach points at edit for its option: \(attach.stderr)")
        let sale = try tool(["edit", "100", "--sale-price", "9000"])
        XCTAssertEqual(sale.status, 1)
        XCTAssertTrue(sale.stderr.contains("give the price with the sale price"), sale.stderr)

        let noStock = try productFolder("no-stock", photos: ["photos/DSCN0010.jpg"],
                                        json: #"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000}"#)
        let usage = try tool(["register", noStock])
        XCTAssertEqual(usage.status, 2, usage.stderr)
        XCTAssertTrue(usage.stderr.contains(#"a product needs stock: give --stock or set "stock" in"#), usage.stderr)
        let typo = try productFolder("typo", photos: ["photos/DSCN0010.jpg"],
                                     json: #"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"stock":1,"sael_price":8000}"#)
        let file = try tool(["register", typo])
        XCTAssertEqual(file.status, 1, file.stderr)
        XCTAssertTrue(file.stderr.contains("typo/product.json: \"sael_price\" is not a product key"), file.stderr)
        let publish = try tool(["publish", products, "--dry-run"])
        XCTAssertEqual(publish.status, 1)
        XCTAssertTrue(publish.stdout.contains("a product needs stock"), publish.stdout)
        XCTAssertFalse(publish.stdout.contains("give --"), "publish has no field flags: \(publish.stdout)")
        let count = await server.products.count
        XCTAssertEqual(count, 1)
    }
}

import Foundation
@testable import MarketUploader
import TestSupport
import XCTest

/// `register`, `attach` and `publish` as a seller runs them, against the loopback server. Every
/// output is also checked for the secrets.
final class UploaderCommandLineTests: CommandLineTestCase {
    func testRegisterAFolderWithProductJSON() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("sku-1", photos: ["photos/iphone_13_pro_max.HEIC", "orientation/Landscape_6.jpg"])
        let result = try tool(["register", folder, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let product = try JSONDecoder().decode(ProductResponse.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(product.name, "Product sku-1")
        let stored = try await XCTUnwrapAsync(await server.products[product.id])
        XCTAssertEqual(stored.images.map(\.filename), ["IMG_1.jpg", "IMG_2.jpg"])
        XCTAssertTrue(stored.images.allSatisfy { $0.data.count <= 300_000 })
    }

    /// product.json values are product fields and nothing else: paths in them are neither read nor
    /// written, and odd characters reach the server verbatim as data.
    func testProductJSONValuesAreDataNotPaths() async throws {
        _ = try await startServer(.openmarket)
        let name = "../../../../tmp/market-images-evil"
        let description = "line one\nline two\u{0} after a NUL, long enough"
        let json = try JSONSerialization.data(withJSONObject: [
            "name": name, "description": description, "price": 1000, "stock": 1,
        ])
        let folder = try productFolder("sku-odd", photos: ["photos/DSCN0010.jpg"], json: String(decoding: json, as: UTF8.self))
        let result = try tool(["register", folder, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stored = try await XCTUnwrapAsync(await server.products.values.first)
        XCTAssertEqual(stored.images.map(\.filename), ["IMG_1.jpg"], "only the folder's photos are read")
        XCTAssertEqual(stored.fields["name"], name)
        XCTAssertEqual(stored.fields["description"], description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/market-images-evil"))
    }

    func testDryRunSendsNothingAndRedacts() async throws {
        _ = try await startServer(.items)
        let folder = try productFolder("sku-2", photos: ["photos/DSCN0010.jpg"])
        let result = try tool(["register", folder, "--dry-run"], dialect: .items)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("POST \(baseURL.absoluteString)/item\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("name=\"password\"\n\n<redacted>"), result.stdout)
        XCTAssertTrue(result.stdout.contains("name=\"images[]\"; filename=\"IMG_1.jpg\""))
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
        let shown = try CommandLineTool.run(["register", folder, "--dry-run", "--show-secrets", "--server", baseURL.absoluteString,
                                             "--dialect", "items", "--password", "visible-pw", "--cache", root + "/cache"])
        XCTAssertTrue(shown.stdout.contains("visible-pw"))
    }

    func testAttachOnOpenmarketExplainsAndSendsNothing() async throws {
        _ = try await startServer(.openmarket)
        let result = try tool(["attach", "101", Fixture.path("photos/DSCN0010.jpg")])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("cannot change a product's images"), result.stderr)
        XCTAssertTrue(result.stderr.contains("(market-images edit 101 --thumbnail-id N)"), "attach points at edit for its option: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/cache"), "nothing was prepared either")
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    func testInvalidProductIsReportedWithEveryProblemAndMissingCredentialsAreUsageErrors() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("bad", photos: ["photos/DSCN0010.jpg"], json: #"{"name":"ab","description":"short","price":10,"sale_price":20,"stock":1}"#)
        let result = try tool(["register", folder])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("name must be 3–100") && result.stderr.contains("must not exceed the price"), result.stderr)
        let noCredentials = try CommandLineTool.run(["register", folder, "--server", baseURL.absoluteString, "--dialect", "openmarket"],
                                                    environment: ["OPENMARKET_IDENTIFIER": "", "OPENMARKET_SECRET": ""])
        XCTAssertEqual(noCredentials.status, 2, noCredentials.stderr)
        XCTAssertTrue(noCredentials.stderr.contains("Usage: market-images register "), "the usage of the command run: \(noCredentials.stderr)")
        let deleteUsage = try CommandLineTool.run(["delete", "1", "--server", baseURL.absoluteString, "--dialect", "openmarket", "--yes"],
                                                  environment: ["OPENMARKET_IDENTIFIER": "", "OPENMARKET_SECRET": ""])
        XCTAssertEqual(deleteUsage.status, 2)
        XCTAssertTrue(deleteUsage.stderr.contains("Usage: market-images delete ") && deleteUsage.stderr.contains("<ids>"), deleteUsage.stderr)
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    func testPublishRegistersEachFolderOnceAcrossReruns() async throws {
        _ = try await startServer(.marketTraining)
        for name in ["a", "b", "c"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        let first = try tool(["publish", root + "/products"], dialect: .marketTraining)
        XCTAssertEqual(first.status, 0, first.stderr)
        var products = await server.products
        XCTAssertEqual(products.count, 3)

        _ = try productFolder("d", photos: ["alpha/Flag_of_the_Netherlands-alpha.png"])
        let second = try tool(["publish", root + "/products"], dialect: .marketTraining)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout.components(separatedBy: " unchanged ").count - 1, 3, second.stdout)
        products = await server.products
        XCTAssertEqual(products.count, 4, "no product listed twice")
    }

    /// The same loopback server spelled four ways is one server: nothing is listed twice.
    func testPublishKnowsTheServerHoweverItsURLIsSpelled() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        let port = try XCTUnwrap(baseURL.port)
        for server in ["http://127.0.0.1:\(port)", "http://localhost:\(port)/", "HTTP://LOCALHOST:\(port)//", "http://[::1]:\(port)"] {
            let result = try CommandLineTool.run(["publish", root + "/products", "--server", server, "--dialect", "openmarket", "--cache", root + "/cache"],
                                                 environment: ["OPENMARKET_IDENTIFIER": OpenMarketTestServer.identifier,
                                                               "OPENMARKET_SECRET": OpenMarketTestServer.vendorSecret])
            XCTAssertEqual(result.status, 0, "\(server): \(result.stderr)")
        }
        let products = await server.products
        XCTAssertEqual(products.count, 1, "one listing, whatever the spelling")
    }

    /// A 500 may hide a listing: the rerun looks for it, finds none, and still sends nothing until
    /// the seller says so.
    func testPublishNeverResendsARequestThatMayHaveBeenListed() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        await server.arm(.status(500, body: #"{"code":500,"message":"timeout writing to the database"}"#))
        let failed = try tool(["publish", root + "/products"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("database"), failed.stderr)

        let rerun = try tool(["publish", root + "/products"])
        XCTAssertEqual(rerun.status, 1)
        XCTAssertTrue(rerun.stdout.contains("no listing on the server matches") && rerun.stdout.contains("--resend-pending"), rerun.stdout)
        XCTAssertFalse(rerun.stderr.contains("no listing on the server matches"), "named once, in the plan: \(rerun.stderr)")
        var posts = await server.received.filter { $0.method == "POST" }.count
        XCTAssertEqual(posts, 1, "the pending product was not sent again")

        let resent = try tool(["publish", root + "/products", "--resend-pending"])
        XCTAssertEqual(resent.status, 0, resent.stderr)
        posts = await server.received.filter { $0.method == "POST" }.count
        XCTAssertEqual(posts, 2)
    }

    /// `publish` killed between sending a register and recording its answer, in each dialect: the
    /// rerun finds the listing on the server and adopts it, and publishes the folder never started.
    func testPublishKilledMidRequestAdoptsTheListingAndListsNothingTwice() async throws {
        for dialect in Dialect.allCases {
            try await publishKilledMidRequest(dialect)
            try FileManager.default.removeItem(atPath: root + "/products")
        }
    }

    private func publishKilledMidRequest(_ dialect: Dialect) async throws {
        _ = try await startServer(dialect)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        try await publishKilledDuringRegister(dialect)

        let rerun = try tool(["publish", root + "/products"], dialect: dialect)
        XCTAssertEqual(rerun.status, 0, "\(dialect): \(rerun.stdout)\n\(rerun.stderr)")
        XCTAssertTrue(rerun.stdout.contains("a: adopted product"), rerun.stdout)
        let names = await server.products.values.map { $0.fields[dialect == .items ? "title" : "name"] ?? "" }.sorted()
        XCTAssertEqual(names, ["Product a", "Product b"], "\(dialect): each product listed exactly once")
        let again = try tool(["publish", root + "/products"], dialect: dialect)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout.components(separatedBy: " unchanged ").count - 1, 2, "the adopted listing is recorded: \(again.stdout)")
    }

    func testPublishForgetsARequestTheServerRefused() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        await server.arm(.status(400, body: #"{"code":400,"message":"JSON parse error"}"#))
        XCTAssertEqual(try tool(["publish", root + "/products"]).status, 1)
        let rerun = try tool(["publish", root + "/products"])
        XCTAssertEqual(rerun.status, 0, "a refused request listed nothing, so it is sent again: \(rerun.stderr)")
    }
}

extension UploaderCommandLineTests {
    /// What a new seller tripped over, done the way they did it.
    func testDryRunWithoutCredentialsShowsPlaceholders() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        let result = try CommandLineTool.run(["register", folder, "--dry-run", "--server", baseURL.absoluteString, "--dialect", "openmarket",
                                              "--cache", root + "/cache"], environment: ["OPENMARKET_IDENTIFIER": "", "OPENMARKET_SECRET": ""])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("identifier: <identifier>"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Content-Length: <redacted>"), "the body holds the secret: \(result.stdout)")
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    func testPublishDryRunWritesNothingAndJSONIsJSON() async throws {
        _ = try await startServer(.openmarket)
        for name in ["a", "b"] { _ = try productFolder(name, photos: ["photos/DSCN0010.jpg"]) }
        let dry = try tool(["publish", root + "/products", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/products/.openmarket-published.json"), "a dry run writes no ledger")
        let published = try tool(["publish", root + "/products", "--json"])
        XCTAssertEqual(published.status, 0, published.stderr)
        let outcomes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [[String: Any]], published.stdout)
        XCTAssertEqual(outcomes.map { $0["action"] as? String }, ["register", "register"])
        XCTAssertEqual(outcomes.map { $0["result"] as? String }, ["done", "done"])
        XCTAssertEqual(Set(outcomes.compactMap { $0["productID"] as? Int }).count, 2)
    }

    /// product.json is checked key by key with the file and the key named.
    func testProductJSONMistakesAreNamed() async throws {
        _ = try await startServer(.openmarket)
        let cases: [(json: String, status: Int32, expected: String)] = [
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"stock":1,"sael_price":8000}"#, 1,
             #""sael_price" is not a product key; did you mean "sale_price"?"#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":12000,"stock":1,"discounted_price":10800}"#, 1,
             #""discounted_price" is ambiguous: the market-training and openmarket servers read it as the amount taken off"#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":"12,000","stock":1}"#, 1,
             #""price" must be a number like 12000 (no quotes), not "12,000""#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":12000.5,"stock":1}"#, 1, "price 12000.5 KRW must be a whole number of won"),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000}"#, 2, #"a product needs stock: give --stock or set "stock" in"#),
            ("{\n  \"name\": \"Mug\",\n  \"price\": 9000,,\n}", 1, "is not valid JSON: line 3, column 17: look for a missing or extra comma"),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"stock":"3개"}"#, 1,
             #""stock" must be a number like 3 (no quotes), not "3개""#),
        ]
        for (index, item) in cases.enumerated() {
            let folder = try productFolder("p\(index)", photos: ["photos/DSCN0010.jpg"], json: item.json)
            let result = try tool(["register", folder])
            XCTAssertEqual(result.status, item.status, "\(item.json): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(item.expected), "\(item.json): \(result.stderr)")
            // Rules shared with the flags name the field; what only the file can get wrong names the file.
            XCTAssertFalse(result.stderr.contains("around character"), "no Foundation wording: \(result.stderr)")
            if [0, 1, 2, 4, 5, 6].contains(index) { XCTAssertTrue(result.stderr.contains("p\(index)/product.json"), result.stderr) }
        }
        let folder = try productFolder("krw", photos: ["photos/DSCN0010.jpg"],
                                       json: #"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"currency":"krw","stock":1}"#)
        XCTAssertEqual(try tool(["register", folder, "--currency", "usd", "--price", "12.5"]).status, 0, "currencies in any case")
        let count = await server.requestCount
        XCTAssertEqual(count, 1, "only the valid product was sent")
    }

    /// A 500 leaves the folder pending: the message says so instead of "try again later".
    func testAServerErrorDuringPublishSaysThePendingState() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg"])
        await server.arm(.status(500, body: #"{"code":500,"message":"boom"}"#))
        let failed = try tool(["publish", root + "/products"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("it is pending: the next run looks for the listing"), failed.stderr)
        XCTAssertFalse(failed.stderr.contains("try again later"), failed.stderr)
    }
}

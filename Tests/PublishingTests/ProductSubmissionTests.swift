import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// `register`, `edit` and `attach`'s requests, made whole before anything is sent: a product folder's
/// fields and photos, every rule and every mistake in `product.json` named, photos refused before
/// they are prepared where the server cannot take them, and secrets kept out of what is shown.
final class ProductSubmissionTests: PublishingTestCase {
    private func register(_ inputs: [String], overrides: ProductChange = ProductChange()) throws -> ProductSubmission {
        try ProductSubmission.register(inputs, overrides: overrides, photos: photoCache, client: client, credentials: credentials(for: client.requests.dialect))
    }

    func testAFolderIsRegisteredWithItsProductJSONAndItsPhotosPrepared() async throws {
        try await start(.openmarket)
        let folder = try productFolder("sku-1", photos: ["photos/iphone_13_pro_max.HEIC", "orientation/Landscape_6.jpg"])
        let product = try await register([folder]).send()
        XCTAssertEqual(product.name, "Product sku-1")
        let stored = try await XCTUnwrapAsync(await server.products[product.id])
        XCTAssertEqual(stored.images.map(\.filename), ["IMG_1.jpg", "IMG_2.jpg"])
        XCTAssertTrue(stored.images.allSatisfy { $0.data.count <= 300_000 })
    }

    /// product.json values are product fields and nothing else: paths in them are neither read nor
    /// written, and odd characters reach the server verbatim as data.
    func testProductJSONValuesAreDataNotPaths() async throws {
        try await start(.openmarket)
        let name = "../../../../tmp/market-images-evil"
        let description = "line one\nline two\u{0} after a NUL, long enough"
        let json = try JSONSerialization.data(withJSONObject: ["name": name, "description": description, "price": 1000, "stock": 1])
        let folder = try productFolder("sku-odd", photos: ["photos/DSCN0010.jpg"], json: String(decoding: json, as: UTF8.self))
        _ = try await register([folder]).send()
        let stored = try await XCTUnwrapAsync(await server.products.values.first)
        XCTAssertEqual(stored.images.map(\.filename), ["IMG_1.jpg"], "only the folder's photos are read")
        XCTAssertEqual(stored.fields["name"], name)
        XCTAssertEqual(stored.fields["description"], description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/market-images-evil"))
    }

    /// The request a dry run shows is the one that would be sent, with every secret redacted, the
    /// length of a body holding one too, unless secrets are asked for; building it sends nothing.
    func testTheRequestIsShownWithSecretsRedactedAndNothingIsSent() async throws {
        try await start(.items)
        let folder = try productFolder("sku-2", photos: ["photos/DSCN0010.jpg"])
        let request = try register([folder]).request
        let shown = request.rendered(credentials: Self.password)
        XCTAssertTrue(shown.hasPrefix("POST \(baseURL.absoluteString)/item\n"), shown)
        XCTAssertTrue(shown.contains("name=\"password\"\n\n<redacted>"), shown)
        XCTAssertTrue(shown.contains("name=\"images[]\"; filename=\"IMG_1.jpg\""), shown)
        XCTAssertTrue(shown.contains("Content-Length: <redacted>"), "the body holds the secret: \(shown)")
        XCTAssertTrue(request.rendered(credentials: Self.password, showSecrets: true).contains(OpenMarketTestServer.password))
        let vendor = try ProductSubmission.register([folder], overrides: ProductChange(), photos: photoCache,
                                                    client: client(at: baseURL, .openmarket), credentials: Self.vendor).request
        let rendered = vendor.rendered(credentials: Self.vendor)
        XCTAssertTrue(rendered.contains("identifier: \(OpenMarketTestServer.identifier)") && rendered.contains("Content-Length: <redacted>"), rendered)
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    /// G2/G3 cannot change a product's images: new photos are refused before any is prepared, and
    /// nothing is sent.
    func testNewPhotosAreRefusedBeforePreparingWhereImagesCannotChange() async throws {
        try await start(.openmarket)
        XCTAssertThrowsError(try ProductSubmission.edit(id: 101, ProductChange(), newPhotos: [Fixture.path("photos/DSCN0010.jpg")], photos: photoCache,
                                                        client: client, credentials: Self.vendor)) { error in
            guard case .unsupported(let text)? = error as? OpenMarketError else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("cannot change a product's images"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/cache"), "nothing was prepared either")
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    func testEveryRuleTheProductBreaksIsNamedBeforeSending() async throws {
        try await start(.openmarket)
        let folder = try productFolder("bad", photos: ["photos/DSCN0010.jpg"], json: #"{"name":"ab","description":"short","price":10,"sale_price":20,"stock":1}"#)
        XCTAssertThrowsError(try register([folder])) { error in
            guard case .invalid(let problems)? = error as? OpenMarketError else { return XCTFail("\(error)") }
            XCTAssertTrue(problems.contains { $0.contains("name must be 3–100") }, "\(problems)")
            XCTAssertTrue(problems.contains { $0.contains("must not exceed the price") }, "\(problems)")
        }
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    /// product.json is checked key by key, with the file and the key named; rules shared with the
    /// caller's fields name the field. What the caller gives overrides the file.
    func testProductJSONMistakesAreNamed() async throws {
        try await start(.openmarket)
        let cases: [(json: String, expected: String)] = [
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"stock":1,"sael_price":8000}"#,
             #""sael_price" is not a product key; did you mean "sale_price"?"#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":12000,"stock":1,"discounted_price":10800}"#,
             #""discounted_price" is ambiguous: the market-training and openmarket servers read it as the amount taken off"#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":"12,000","stock":1}"#, #""price" must be a number like 12000 (no quotes), not "12,000""#),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":12000.5,"stock":1}"#, "price 12000.5 KRW must be a whole number of won"),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000}"#, #"a product needs stock: set "stock" in"#),
            ("{\n  \"name\": \"Mug\",\n  \"price\": 9000,,\n}", "is not valid JSON: line 3, column 17: look for a missing or extra comma"),
            (#"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"stock":"3개"}"#, #""stock" must be a number like 3 (no quotes), not "3개""#),
        ]
        for (index, item) in cases.enumerated() {
            let folder = try productFolder("p\(index)", photos: ["photos/DSCN0010.jpg"], json: item.json)
            XCTAssertThrowsError(try register([folder]), item.json) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(item.expected), "\(item.json): \(text)")
                XCTAssertFalse(text.contains("around character"), "no Foundation wording: \(text)")
                // What only the file can get wrong names the file; the server's rules name the field.
                XCTAssertEqual(text.contains("p\(index)/product.json"), index != 3, text)
            }
        }
        XCTAssertThrowsError(try register([products + "/p4"])) { error in
            XCTAssertEqual(error as? PublishingError, .missingFields(["stock"], productFile: products + "/p4/product.json"))
        }
        let folder = try productFolder("krw", photos: ["photos/DSCN0010.jpg"],
                                       json: #"{"name":"Mug","description":"A fine mug, 350 ml.","price":9000,"currency":"krw","stock":1}"#)
        let product = try await register([folder], overrides: ProductChange(price: 12.5, currency: .USD)).send()
        XCTAssertEqual(product.currency, "USD", "currencies in any case, the caller's over the file's")
        let count = await server.requestCount
        XCTAssertEqual(count, 1, "only the valid product was sent")
    }

    /// An edit answered with a redirect to another server changes nothing there or here, and the
    /// error says where it pointed.
    func testAnEditRedirectedToAnotherServerChangesNothing() async throws {
        try await start(.openmarket)
        let other = try OpenMarketTestServer(dialect: .openmarket)
        let otherURL = try await other.start()
        addTeardownBlock { await other.stop() }
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        let location = otherURL.absoluteString + "/api/products/\(product.id)"
        await server.arm(.redirect(307, location: location, acting: false))
        let edit = try ProductSubmission.edit(id: product.id, ProductChange(price: 11000), newPhotos: [], photos: photoCache, client: client,
                                              credentials: Self.vendor)
        do {
            _ = try await edit.send()
            XCTFail("a redirected edit must fail")
        } catch let error as OpenMarketError {
            XCTAssertEqual(error, .redirected(status: 307, from: baseURL.absoluteString + "/api/products/\(product.id)", to: location))
            XCTAssertTrue(error.description.contains("redirect (307)"), error.description)
        }
        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0, "neither the identifier nor the secret left for the other port")
        let price = await server.products[product.id]?.fields["price"]
        XCTAssertEqual(price, "12000.0", "the redirected edit was not carried out")
    }
}

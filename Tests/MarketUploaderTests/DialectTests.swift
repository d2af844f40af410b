import Foundation
import TestSupport
@testable import MarketUploader
import XCTest

/// Each dialect end to end over loopback: what the server received, and what the client decoded.
final class DialectTests: UploaderTestCase {
    func testItemsRegisterSendsTextPartsAndImagesWithBrackets() async throws {
        let client = try await startServer(.items)
        let image = try Self.jpeg("front.jpg")
        let product = try await client.register(Self.draft, images: [image, try Self.jpeg("side.jpg")], credentials: Self.password)
        let request = try await XCTUnwrapAsync(await server.lastRequest)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/item")
        XCTAssertEqual(request.parts.map(\.name), ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password", "images[]", "images[]"])
        XCTAssertEqual(request.parts.first { $0.name == "price" }?.body, Data("12000".utf8))
        XCTAssertEqual(request.parts.first { $0.name == "discounted_price" }?.body, Data("11000".utf8), "G1: the price after the discount")
        XCTAssertEqual(Dialect.items.salePrice(of: product), 11000)
        XCTAssertEqual(request.parts[7].filename, "front.jpg")
        XCTAssertEqual(request.parts[7].headers["content-type"], "image/jpeg")
        XCTAssertEqual(request.parts[7].body, try Self.fixture("photos/DSCN0010.jpg"), "the image bytes themselves, not a description of them")
        XCTAssertEqual(product.name, "Ceramic mug")
        XCTAssertEqual(product.description, "Hand-thrown, holds 350 ml.")
        XCTAssertEqual(product.price, 12000)
        XCTAssertEqual(product.images.count, 2)
        XCTAssertNotNil(product.createdAt)
    }

    func testMarketTrainingAndOpenmarketRegisterSendOneParamsPart() async throws {
        for dialect in [Dialect.marketTraining, .openmarket] {
            let client = try await startServer(dialect)
            let png = UploadImage(filename: "flag.png", data: try Self.fixture("alpha/Flag_of_the_Netherlands-alpha.png"))
            let product = try await client.register(Self.draft, images: [try Self.jpeg(), png], credentials: Self.vendor)
            let request = try await XCTUnwrapAsync(await server.lastRequest)
            XCTAssertEqual(request.path, "/api/products")
            XCTAssertEqual(request.headers["identifier"], OpenMarketTestServer.identifier)
            XCTAssertEqual(request.parts.map(\.name), ["params", "images", "images"], "\(dialect)")
            XCTAssertEqual(request.parts[0].headers["content-type"], "application/json")
            let params = try XCTUnwrap(try JSONSerialization.jsonObject(with: request.parts[0].body) as? [String: Any])
            let descriptionKey = dialect == .openmarket ? "description" : "descriptions"
            XCTAssertEqual(Set(params.keys), ["name", descriptionKey, "price", "currency", "stock", "discounted_price", "secret"])
            XCTAssertEqual(params["discounted_price"] as? Double, 1000, "G2/G3: the amount taken off a 12000 price for a sale at 11000")
            XCTAssertEqual(product.bargainPrice, 11000, "what the \(dialect) server says a buyer pays")
            XCTAssertEqual(dialect.salePrice(of: product), 11000)
            XCTAssertEqual(request.parts[2].headers["content-type"], "image/png")
            XCTAssertEqual(product.price, 12000, "2000.0-style numbers decode")
            XCTAssertEqual(product.images.first?.id, product.id * 10)
            XCTAssertNotNil(product.createdAt, "zone-less date decodes")
            await server.stop()
        }
    }

    func testGetEditAndDeleteInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let credentials = credentials(for: dialect)
            let created = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: credentials)
            let fetched = try await client.product(id: created.id)
            XCTAssertEqual(fetched.id, created.id)
            let edited = try await client.edit(id: created.id, ProductChange(name: "Blue ceramic mug", price: 15000), credentials: credentials)
            XCTAssertEqual(edited.name, "Blue ceramic mug", "\(dialect)")
            XCTAssertEqual(edited.price, 15000)
            try await client.delete(id: created.id, credentials: credentials)
            let gone = await server.products[created.id]
            XCTAssertNil(gone, "\(dialect)")
            do {
                _ = try await client.product(id: created.id)
                XCTFail("deleted product still found")
            } catch {
                guard case .notFound = error else { return XCTFail("\(error)") }
            }
            await server.stop()
        }
    }

    func testEditSendsJSONToMarketTrainingWithThumbnailID() async throws {
        let client = try await startServer(.marketTraining)
        let created = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        _ = try await client.edit(id: created.id, ProductChange(stock: 9, thumbnailID: created.images[0].id), credentials: Self.vendor)
        let request = try await XCTUnwrapAsync(await server.lastRequest)
        XCTAssertEqual(request.method, "PATCH")
        XCTAssertEqual(request.headers["content-type"], "application/json")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self),
                       "{\"secret\":\"\(OpenMarketTestServer.vendorSecret)\",\"stock\":9,\"thumbnail_id\":\(created.images[0].id!)}")
    }

    func testItemsEditWithImagesReplacesThem() async throws {
        let client = try await startServer(.items)
        let created = try await client.register(Self.draft, images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: Self.password)
        let edited = try await client.edit(id: created.id, ProductChange(), images: [try Self.jpeg("new.jpg")], credentials: Self.password)
        XCTAssertEqual(edited.images.count, 1)
        let request = try await XCTUnwrapAsync(await server.lastRequest)
        XCTAssertEqual(request.parts.map(\.name), ["password", "images[]"])
    }

    func testImagesOnAnEditToG2OrG3AreRefusedBeforeSending() async throws {
        for dialect in [Dialect.marketTraining, .openmarket] {
            let client = try await startServer(dialect)
            do {
                _ = try await client.edit(id: 1, ProductChange(), images: [try Self.jpeg()], credentials: Self.vendor)
                XCTFail("images on a \(dialect) edit must be refused")
            } catch let error as OpenMarketError {
                guard case .unsupported(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("cannot change a product's images"), message)
            }
            let count = await server.requestCount
            XCTAssertEqual(count, 0, "nothing was sent")
            await server.stop()
        }
    }

    func testDialectFromHost() {
        XCTAssertEqual(Dialect.inferred(from: URL(string: "https://camp-open-market-2.herokuapp.com")!), .items)
        XCTAssertEqual(Dialect.inferred(from: URL(string: "https://market-training.yagom-academy.kr")!), .marketTraining)
        XCTAssertEqual(Dialect.inferred(from: URL(string: "https://openmarket.yagom-academy.kr/api")!), .openmarket)
        XCTAssertNil(Dialect.inferred(from: URL(string: "http://127.0.0.1:8080")!))
    }
}

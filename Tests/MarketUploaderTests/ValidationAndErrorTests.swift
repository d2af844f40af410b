import Foundation
@testable import MarketUploader
import TestSupport
import XCTest

final class ValidationAndErrorTests: UploaderTestCase {
    func testEveryViolationIsListedInOneErrorAndNothingIsSent() async throws {
        let client = try await startServer(.openmarket)
        let bad = ProductDraft(name: "Mu", description: "short", price: 1000, stock: -1, salePrice: 2000)
        let images = try (0..<6).map { _ in try Self.jpeg() }
            + [UploadImage(filename: "big.jpg", data: try Self.fixture("photos/jolla.jpg")),
               UploadImage(filename: "phone.jpg", data: try Self.fixture("photos/iphone_13_pro_max.HEIC"))]
        do {
            _ = try await client.register(bad, images: images, credentials: .vendor(identifier: "", secret: Secret("")))
            XCTFail("must not send")
        } catch {
            guard case .invalid(let problems) = error else { return XCTFail("\(error)") }
            let text = problems.joined(separator: "\n")
            for expected in ["name must be 3–100", "description must be 10–1000", "stock must be 0 or more",
                             "sale price (2000) must not exceed the price (1000)", "identifier must not be empty",
                             "secret must not be empty", "8 images; the server takes 1 to 5", "big.jpg: 811904 bytes",
                             "phone.jpg: not a JPEG or PNG"] {
                XCTAssertTrue(text.contains(expected), "missing \"\(expected)\" in:\n\(text)")
            }
            XCTAssertTrue(error.description.hasPrefix("nothing was sent"))
        }
        let count = await server.requestCount
        XCTAssertEqual(count, 0)
    }

    func testWrongCredentialsForTheDialectAreCaught() throws {
        XCTAssertThrowsError(try RequestBuilder(baseURL: Dialect.items.defaultBaseURL, dialect: .items).register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor))
        XCTAssertThrowsError(try RequestBuilder(baseURL: Dialect.openmarket.defaultBaseURL, dialect: .openmarket).register(Self.draft, images: [try Self.jpeg()], credentials: Self.password))
    }

    func testWrongSecretIsUnauthorizedWithTheServersMessage() async throws {
        let client = try await startServer(.openmarket)
        let wrong = Credentials.vendor(identifier: OpenMarketTestServer.identifier, secret: Secret("not-the-secret"))
        do {
            _ = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: wrong)
            XCTFail()
        } catch let error as OpenMarketError {
            XCTAssertEqual(error, .unauthorized(status: 401, message: "secret is wrong"))
        }
    }

    func testG1WrongPasswordNotFoundAndServerText() async throws {
        let client = try await startServer(.items)
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.password)
        do {
            _ = try await client.edit(id: product.id, ProductChange(stock: 1), credentials: .password(Secret("nope")))
            XCTFail()
        } catch {
            XCTAssertEqual(error, .unauthorized(status: 401, message: "Wrong password"))
        }
        do {
            _ = try await client.product(id: 999)
            XCTFail()
        } catch {
            XCTAssertEqual(error, .notFound(message: "product 999 not found"))
        }
    }

    func testTooLargeAndServerErrors() async throws {
        let client = try await startServer(.openmarket)
        await server.arm(.status(413, body: "Request Entity Too Large"))
        do {
            _ = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
            XCTFail()
        } catch let error as OpenMarketError {
            XCTAssertEqual(error, .payloadTooLarge(message: "Request Entity Too Large"))
        }
    }

    func testAGetIsRetriedAfter5xxButARegisterIsNot() async throws {
        let client = try await startServer(.openmarket)
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        await server.arm(.status(500, body: "boom"))
        await server.arm(.status(503, body: "busy"))
        let fetched = try await client.product(id: product.id)
        XCTAssertEqual(fetched.id, product.id)
        let afterGet = await server.requestCount
        XCTAssertEqual(afterGet, 4, "register + two failed GETs + one good GET")

        await server.arm(.status(500, body: "{\"code\":500,\"message\":\"database down\"}"))
        do {
            _ = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
            XCTFail()
        } catch let error as OpenMarketError {
            XCTAssertEqual(error, .serverError(status: 500, message: "database down"))
        }
        let afterRegister = await server.requestCount
        XCTAssertEqual(afterRegister, 5, "a register that reached the server is never resent")
    }

    func testConnectionRefusedSaysNothingWasSent() async throws {
        // Bind a port, then close it, so nothing listens there.
        let client = try await startServer(.openmarket)
        await server.stop()
        var refused = client
        refused.retries = 0
        do {
            _ = try await refused.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
            XCTFail()
        } catch let error as OpenMarketError {
            guard case .transport(_, let reached) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(reached)
            XCTAssertTrue(error.description.contains("nothing was sent"))
        }
    }

    /// The connection dies after part of the body: the register may have been received, so it is
    /// reported as such and never sent again; a GET in the same situation is retried.
    func testResetMidBodyIsNeverResentButAGetIs() async throws {
        let resetting = try ResettingServer(bytesBeforeReset: 20_000)
        var client = OpenMarketClient(baseURL: resetting.url, dialect: .openmarket)
        client.retryDelay = 0.01
        client.timeout = 5
        let photo = try Self.jpeg()
        do {
            _ = try await client.register(Self.draft, images: [photo], credentials: Self.vendor)
            XCTFail("a reset connection cannot be a success")
        } catch {
            guard case .transport(_, let reached) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reached)
            XCTAssertTrue(error.description.contains("the server may have acted on the request"), error.description)
            TestSecrets.assertAbsent(in: error.description, "the reset error")
        }
        XCTAssertEqual(resetting.connections, 1, "the register was not resent")
        XCTAssertGreaterThanOrEqual(resetting.received, 20_000, "the reset came mid-body")

        let resettingAtOnce = try ResettingServer(bytesBeforeReset: 1)
        var getter = OpenMarketClient(baseURL: resettingAtOnce.url, dialect: .openmarket)
        getter.retryDelay = 0.01
        do {
            _ = try await getter.product(id: 1)
            XCTFail()
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(resettingAtOnce.connections, 1 + getter.retries, "the GET was retried")
    }

    func testSlowServerTimesOut() async throws {
        var client = try await startServer(.openmarket)
        client.timeout = 0.5
        client.retries = 0
        await server.arm(.delay(seconds: 2))
        do {
            _ = try await client.product(id: 1)
            XCTFail()
        } catch {
            XCTAssertEqual(error, .timedOut(seconds: 0.5))
        }
    }

    func testGarbageJSONIsAClearError() async throws {
        let client = try await startServer(.openmarket)
        await server.arm(.garbage)
        do {
            _ = try await client.product(id: 1)
            XCTFail()
        } catch {
            guard case .invalidResponse(let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("<html>not json"))
        }
    }

    func testLenientNumbersAndDates() throws {
        let json = #"{"id":"12","name":"Mug","price":"2000","discounted_price":150.0,"stock":3.0,"created_at":"2022-01-18T13:45:00Z","images":[{"id":5.0,"url":"u"}]}"#
        let product = try JSONDecoder().decode(ProductResponse.self, from: Data(json.utf8))
        XCTAssertEqual(product.id, 12)
        XCTAssertEqual(product.price, 2000)
        XCTAssertEqual(product.stock, 3)
        XCTAssertEqual(product.images.first?.id, 5)
        XCTAssertEqual(product.createdAt, Date(timeIntervalSince1970: 1_642_513_500))
        for date in ["2022-01-18T00:00:00.00", "2022-01-18T00:00:00", "2022-01-18T00:00:00.123456", "2022-01-18"] {
            XCTAssertNotNil(ProductResponse.date(date), date)
        }
    }
}

import Foundation
import TestSupport
@testable import MarketUploader
import XCTest

/// The mistakes real OpenMarket clients made (openmarket-api.md), each as a case the builder makes
/// impossible, checked on the bytes and on what the test server received.
final class ClientMistakesTests: UploaderTestCase {
    private func registerBody(_ dialect: Dialect) throws -> (request: OpenMarketRequest, form: MultipartFormData, body: Data) {
        let request = try RequestBuilder(baseURL: dialect.defaultBaseURL, dialect: dialect)
            .register(Self.draft, images: [try Self.jpeg()], credentials: credentials(for: dialect))
        guard case .multipart(let form) = request.body else {
            // A failure, not a skip: a regression here must turn every test below red.
            XCTFail("register must be multipart, got \(request.body)")
            throw CocoaError(.featureUnsupported)
        }
        return (request, form, form.encoded())
    }

    /// A draft without a stock is no draft: defaulted to 0, the README's example listed its mug
    /// sold out. The initializer requires it (this file would not compile otherwise), and so does
    /// a draft read back from JSON (a record, an app's own store).
    func testADraftHasNoDefaultStock() throws {
        let without = Data(#"{"name": "Ceramic mug", "description": "Hand-thrown", "price": 12000, "currency": "KRW"}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(ProductDraft.self, from: without)) { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "stock")
        }
        let with = Data(#"{"name": "Ceramic mug", "description": "Hand-thrown", "price": 12000, "stock": 3}"#.utf8)
        XCTAssertEqual(try JSONDecoder().decode(ProductDraft.self, from: with).stock, 3)
    }

    /// 1, 5: every delimiter is `--boundary`, the last one `--boundary--`, the header says `boundary=`.
    func testDelimitersAndBoundaryParameter() throws {
        for dialect in Dialect.allCases {
            let (request, form, body) = try registerBody(dialect)
            let text = String(decoding: body, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("--\(form.boundary)\r\n"))
            XCTAssertTrue(text.hasSuffix("\r\n--\(form.boundary)--\r\n"))
            XCTAssertEqual(text.components(separatedBy: "\r\n--\(form.boundary)\r\n").count, form.parts.count)
            XCTAssertEqual(request.contentType, "multipart/form-data; boundary=\(form.boundary)")
        }
    }

    /// 2: an empty line after every part's headers, CRLF after every part's data.
    func testCRLFAfterHeadersAndData() throws {
        let (_, form, body) = try registerBody(.openmarket)
        let text = String(decoding: body, as: UTF8.self)
        let chunks = text.components(separatedBy: "--\(form.boundary)").dropFirst().dropLast()
        for chunk in chunks {
            XCTAssertTrue(chunk.hasPrefix("\r\nContent-Disposition: form-data; name=\""), chunk.prefix(60).description)
            XCTAssertTrue(chunk.contains("\r\n\r\n"))
            XCTAssertTrue(chunk.hasSuffix("\r\n"))
        }
    }

    /// 3: the image bytes go into the body, not a description of them ("154 bytes").
    func testImageBytesNotTheirDescription() throws {
        let (_, _, body) = try registerBody(.items)
        let image = try Self.fixture("photos/DSCN0010.jpg")
        XCTAssertNotNil(body.range(of: image))
        XCTAssertNil(String(decoding: body, as: UTF8.self).range(of: "\(image.count) bytes"))
    }

    /// 4: G2/G3 fields travel in the single `params` JSON part (the server refuses separate parts).
    func testFieldsInOneParamsPart() throws {
        for dialect in [Dialect.marketTraining, .openmarket] {
            let (_, form, _) = try registerBody(dialect)
            XCTAssertEqual(form.parts.map(\.name), ["params", "images"], "\(dialect)")
            XCTAssertEqual(form.parts.first?.contentType, "application/json")
        }
    }

    /// 6: one boundary per request, shared by the header and the body.
    func testOneBoundaryPerRequest() throws {
        let (request, form, body) = try registerBody(.openmarket)
        let boundary = try XCTUnwrap(request.contentType?.components(separatedBy: "boundary=").last)
        XCTAssertEqual(boundary, form.boundary)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasPrefix("--\(boundary)\r\n"))
    }

    /// 7: media types unquoted; `discounted_price`, never `discountedPrice`.
    func testUnquotedContentTypeAndSnakeCaseKeys() throws {
        for dialect in Dialect.allCases {
            let text = String(decoding: try registerBody(dialect).body, as: UTF8.self)
            XCTAssertTrue(text.contains("\r\nContent-Type: image/jpeg\r\n"))
            XCTAssertFalse(text.contains("Content-Type: \""))
            XCTAssertTrue(text.contains("discounted_price"))
            XCTAssertFalse(text.contains("discountedPrice"))
        }
    }

    /// 8: the uploader never re-encodes: it sends exactly the bytes it was given.
    func testImagesAreSentUntouched() async throws {
        let client = try await startServer(.openmarket)
        let image = try Self.fixture("photos/DSCN0010.jpg")
        let product = try await client.register(Self.draft, images: [UploadImage(filename: "a.jpg", data: image)], credentials: Self.vendor)
        let stored = await server.products[product.id]
        XCTAssertEqual(stored?.images.first?.data, image)
    }

    /// 9: G2 deletion puts the product secret from the lookup in the path, never the vendor secret.
    func testDeletionNeverPutsTheVendorSecretInThePath() async throws {
        let client = try await startServer(.marketTraining)
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        try await client.delete(id: product.id, credentials: Self.vendor)
        let paths = await server.received.map(\.path)
        XCTAssertFalse(paths.contains { $0.contains(OpenMarketTestServer.vendorSecret) }, "\(paths)")
        let last = await server.lastRequest
        XCTAssertEqual(last?.method, "DELETE")
        XCTAssertThrowsError(try RequestBuilder(baseURL: baseURL, dialect: .marketTraining)
            .deletion(id: 1, lookupAnswer: "two words", credentials: Self.vendor))
    }

    /// 11: a filename without an extension, or with one that lies, is refused before sending.
    func testFilenamesMustCarryTheRightExtension() throws {
        let builder = RequestBuilder(baseURL: Dialect.openmarket.defaultBaseURL, dialect: .openmarket)
        let jpeg = try Self.fixture("photos/DSCN0010.jpg")
        for name in ["photo", "photo.png", "photo.heic"] {
            XCTAssertThrowsError(try builder.register(Self.draft, images: [UploadImage(filename: name, data: jpeg)], credentials: Self.vendor), name)
        }
        XCTAssertNoThrow(try builder.register(Self.draft, images: [UploadImage(filename: "photo.JPEG", data: jpeg)], credentials: Self.vendor))
    }

    /// 13: a search for a name with `+` in it (a server reads a bare `+` as a space) is escaped, as
    /// is everything but the unreserved characters; Hangul as UTF-8.
    func testASearchedNameIsEscapedWhole() throws {
        let builder = RequestBuilder(baseURL: Dialect.openmarket.defaultBaseURL, dialect: .openmarket)
        XCTAssertEqual(builder.products(page: 2, search: "C++ Mug & co #1 100%").url.query(percentEncoded: true),
                       "page_no=2&items_per_page=20&search_value=C%2B%2B%20Mug%20%26%20co%20%231%20100%25")
        XCTAssertEqual(builder.products(page: 1, search: "머그").url.query(percentEncoded: true), "page_no=1&items_per_page=20&search_value=%EB%A8%B8%EA%B7%B8")
    }

    /// 12: G3 list responses have camelCase top-level keys; G2's are snake_case. Both decode.
    func testListResponsesInBothKeyStyles() throws {
        let product = #"{"id":7,"vendor_id":3,"name":"Mug","price":2000.0,"discounted_price":0.0,"stock":5,"created_at":"2022-01-18T00:00:00.00","images":[]}"#
        let camel = #"{"pageNo":1,"itemsPerPage":20,"totalCount":1,"hasNext":false,"hasPrev":false,"pages":[\#(product)]}"#
        let snake = #"{"page_no":1,"items_per_page":20,"total_count":1,"has_next":true,"pages":[\#(product)]}"#
        let g3 = try JSONDecoder().decode(ProductPage.self, from: Data(camel.utf8))
        let g2 = try JSONDecoder().decode(ProductPage.self, from: Data(snake.utf8))
        XCTAssertEqual(g3.itemsPerPage, 20)
        XCTAssertEqual(g3.totalCount, 1)
        XCTAssertEqual(g3.products.first?.price, 2000)
        XCTAssertTrue(g2.hasNext)
        XCTAssertEqual(g2.products, g3.products)
    }
}

import Foundation
import MarketUploader
import TestSupport
import XCTest

/// `list` and `show` as a library, in every dialect: a page newest first, searched by name in any
/// case whether the server searches or not, one vendor's products, and prices and stock as a seller
/// reads them.
final class ProductQueryTests: UploaderTestCase {
    func testAPageIsNewestFirstAndSearchedByNameInAnyCaseInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let credentials = credentials(for: dialect)
            let mug = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: credentials)
            var cup = Self.draft
            (cup.name, cup.stock) = ("Tea cup", 0)
            let teaCup = try await client.register(cup, images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: credentials)
            var korean = Self.draft
            korean.name = "도자기 머그컵"
            let koreanMug = try await client.register(korean, images: [try Self.jpeg()], credentials: credentials)

            let page = try await ProductQuery().fetch(from: client)
            XCTAssertEqual(page.products.map(\.id), [koreanMug.id, teaCup.id, mug.id], "\(dialect): newest first")
            XCTAssertEqual(page.products.map(\.name), ["도자기 머그컵", "Tea cup", "Ceramic mug"])
            XCTAssertEqual(page.products.map { ProductText.stock(of: $0) }, ["4", "sold out", "4"])
            XCTAssertEqual(page.products.map { ProductText.price(of: $0, dialect: dialect) }, Array(repeating: "₩11,000 (was ₩12,000)", count: 3),
                           "\(dialect)")
            let searched = try await ProductQuery(search: "TEA").fetch(from: client)
            XCTAssertEqual(searched.products.map(\.id), [teaCup.id], "\(dialect): search by name, any case")
            if dialect != .items {
                let mine = try await ProductQuery(vendorID: 7).fetch(from: client)
                XCTAssertEqual(mine.products.count, 3, "\(dialect)")
                let others = try await ProductQuery(vendorID: 8).fetch(from: client)
                XCTAssertEqual(others.products.map(\.id), [], "\(dialect)")
            }

            let shown = try await client.product(id: teaCup.id)
            XCTAssertEqual(shown.images.map(\.url).last, baseURL.absoluteString + "/images/\(teaCup.id)/1.jpg", "\(dialect)")
            do {
                _ = try await client.product(id: 99999)
                XCTFail("\(dialect): no product 99999")
            } catch {
                guard case .notFound = error else { return XCTFail("\(error)") }
                XCTAssertTrue(error.description.contains("not found"), error.description)
            }
            await server.stop()
        }
    }

    /// A page with items that are no products keeps the rest and names each bad one.
    func testAPageWithBadItemsKeepsTheRestAndNamesEach() async throws {
        let client = try await startServer(.openmarket)
        await server.arm(.bytes(200, body: OpenMarketTestServer.pageWithBadItems))
        let page = try await ProductQuery().fetch(from: client)
        XCTAssertEqual(page.products.count, 5)
        XCTAssertTrue(page.products.map(\.name).contains(#"Mug \xFF"#), "\(page.products.map(\.name))")
        XCTAssertEqual(page.problems.count, 5)
        XCTAssertTrue(page.problems.contains { $0.hasPrefix("item 2 of the page left out: id 1.5") }, "\(page.problems)")
        XCTAssertTrue(page.problems.contains { $0.hasPrefix("product 4: its name") }, "\(page.problems)")
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import ImagePipeline
import Logging
import MarketUploader
import ProductPreview
import Publishing
import TestSupport
import ThumbnailService
import XCTest

/// The preview compares each folder with what the server holds, as `publish` plans, not with the
/// publish record: a listing changed or deleted behind the record's back shows as it is, on every
/// dialect, against the loopback OpenMarket server.
final class PreviewServerStateTests: ProductFoldersTestCase {
    private static let lamp = #"{"name":"Desk lamp","description":"A brass desk lamp with a linen shade.","price":9000,"currency":"KRW","stock":3}"#

    func testAListingChangedOrDeletedOnTheServerShowsAsTheServerHoldsIt() async throws {
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let cache = PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache")
            _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            var run = try PublishRun(productsFolder: products, server: baseURL, client: client, credentials: credentials(for: dialect), photos: cache)
            for step in try await run.plan(folders: ProductsFolder(products).productFolders) {
                let applied = await run.apply(step)
                XCTAssertEqual(applied.result, .done, "\(dialect): \(applied.error ?? "")")
            }
            let listed = await server.products
            let id = try XCTUnwrap(listed.keys.first)
            let unchanged = try await page("lamp", client: client, cache: cache)
            XCTAssertEqual(unchanged, "unchanged: published as product \(id), as the server holds it", "\(dialect)")

            _ = try await client.edit(id: id, ProductChange(stock: 1), credentials: credentials(for: dialect))
            let changed = try await page("lamp", client: client, cache: cache)
            XCTAssertEqual(changed, "product \(id) differs on the server: stock 1 on the server, 3 in product.json", "\(dialect)")

            try await client.delete(id: id, credentials: credentials(for: dialect))
            let gone = try await page("lamp", client: client, cache: cache)
            XCTAssertEqual(gone, "product \(id) is gone from the server: publish registers it again", "\(dialect)")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// The publish state a product's page shows, read by the preview from the server behind `client`.
    private func page(_ folder: String, client: OpenMarketClient, cache: PhotoCache) async throws -> String {
        var configuration = PreviewConfiguration(productsFolder: products, photoCache: cache, server: baseURL, dialect: client.requests.dialect)
        configuration.client = client
        let bind = ServiceAddress(host: "127.0.0.1", port: 0)
        let logger = Logger(label: "preview") { _ in SwiftLogNoOpLogHandler() }
        let preview = try ProductPreview(configuration, bind: bind, logger: logger)
        let access = PreviewAccess<BasicRequestContext>(bind: bind, logger: logger)
        let router = Router()
        preview.addRoutes(to: router, access: access)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        let html: String = try await app.test(.live) { test in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(access.token)"]
            return String(buffer: try await test.execute(uri: "/product/\(folder)", method: .get, headers: cookie) { $0 }.body)
        }
        let section = try XCTUnwrap(html.range(of: #"<section class="publish [a-z]+">\s*<h2>Publish</h2>\s*<p>[^<]*</p>"#, options: .regularExpression), html)
        return String(html[section]).replacingOccurrences(of: #"^[\s\S]*<p>|</p>$"#, with: "", options: .regularExpression)
    }
}

import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Publishing in process against the loopback OpenMarket server of every dialect, through the real
/// client and URLSession: what the server is sent on a rerun after a seller changed one field.
final class PublishSyncInProcessTests: UploaderTestCase {
    private static func product(price: Int) -> Data {
        Data(#"{"name":"Ceramic mug","description":"A mug for slow mornings, 350 ml.","price":\#(price),"currency":"KRW","stock":4}"#.utf8)
    }

    func testAChangedPriceIsOneEditOfThatFieldAloneInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let root = try temporaryFolder(self), products = root + "/products", folder = products + "/mug"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixture.path("photos/DSCN0010.jpg"), toPath: folder + "/IMG_1.jpg")
            try Self.product(price: 9000).write(to: URL(fileURLWithPath: folder + "/product.json"))
            let credentials = credentials(for: dialect), base = try XCTUnwrap(baseURL)
            func publish() throws -> PublishRun {
                try PublishRun(productsFolder: products, server: base, client: client, credentials: credentials,
                               photos: PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache"))
            }

            var first = try publish()
            let registered = await first.apply(try await first.plan(folders: [folder])[0])
            XCTAssertEqual(registered.result, .done, "\(dialect): \(registered.error ?? "")")
            let id = try XCTUnwrap(registered.productID)
            let listed = try await XCTUnwrapAsync(stored(id))

            try Self.product(price: 8000).write(to: URL(fileURLWithPath: folder + "/product.json"))
            var second = try publish()
            let plan = try await second.plan(folders: [folder])
            XCTAssertEqual(plan.map(\.action), [.edit], "\(dialect)")
            XCTAssertEqual(plan.first?.changes, [FieldChange(field: "price", from: "₩9,000", to: "₩8,000")])
            let before = await server.requestCount
            let edited = await second.apply(plan[0])
            XCTAssertEqual(edited.result, .done, "\(dialect): \(edited.error ?? "")")
            let after = await server.requestCount
            XCTAssertEqual(after, before + 1, "\(dialect): one request")
            let patch = try await XCTUnwrapAsync(server.lastRequest)
            XCTAssertEqual(patch.method, "PATCH")
            if dialect == .items {
                XCTAssertEqual(patch.parts.compactMap(\.name).sorted(), ["password", "price"], "only the changed field")
            } else {
                let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: patch.body) as? [String: Any])
                XCTAssertEqual(body.keys.sorted(), ["price", "secret"], "only the changed field")
            }
            let now = try await XCTUnwrapAsync(stored(id))
            XCTAssertEqual(Double(now.fields["price"] ?? ""), 8000)
            XCTAssertEqual(now.images.map(\.data), listed.images.map(\.data), "\(dialect): the photos stay")

            var third = try publish()
            let rerun = try await third.plan(folders: [folder])
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect)")
        }
    }

    private func stored(_ id: Int) async -> OpenMarketTestServer.Stored? {
        await server.products[id]
    }
}

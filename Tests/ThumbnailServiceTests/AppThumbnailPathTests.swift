import Foundation
import ImagePipeline
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// The path a shop app takes, end to end: the seller publishes the bundled samples to an OpenMarket
/// server (which hosts the uploaded images over http, as the real ones do), the app reads the product
/// list, builds cell URLs with `ThumbnailURLBuilder` and no key, and a `serve --only-presets` started
/// as an operator starts it answers them from the server's image URLs: the sizes the cells need, one
/// download per image however many sizes and requests.
final class AppThumbnailPathTests: CommandLineTestCase {
    func testAnAppGetsCellThumbnailsOfTheServersImagesWithoutAKey() async throws {
        let client = try await startServer(.openmarket)
        let samples = Fixture.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        try FileManager.default.copyItem(atPath: samples, toPath: root + "/products")
        let published = try tool(["publish", root + "/products"])
        XCTAssertEqual(published.status, 0, published.stderr)

        let service = try await startService(["--only-presets", "--allow-source", baseURL.absoluteString + "/images/",
                                        "--allow-private-sources", "--cache", root + "/thumbnails"])
        let builder = ThumbnailURLBuilder(service: service.base)
        let products = try await client.products(page: 1).products
        let imageURLs = products.flatMap { $0.images.compactMap { URL(string: $0.url) } }
        XCTAssertEqual(products.count, 2)
        let photos = try ["sku-camera", "sku-phone"].map { try FileManager.default.contentsOfDirectory(atPath: samples + "/" + $0).filter { $0 != "product.json" }.count }
        XCTAssertEqual(imageURLs.count, photos.reduce(0, +), "every photo of both products")

        // The uploaded photos' shorter sides, from what the server stored: the cells are filled
        // without enlarging, so a cell larger than a photo gets the photo's size.
        let stored = await server.products
        var shorterSide: [String: Int] = [:]
        for (id, product) in stored {
            for (index, image) in product.images.enumerated() {
                let header = try ImageHeader.read(.data(image.data))
                shorterSide["/images/\(id)/\(index).jpg"] = min(header.width, header.height)
            }
        }
        for round in 1...2 {
            for image in imageURLs {
                for (preset, pixels) in [("list", 240), ("grid", 600)] {
                    let url = try XCTUnwrap(builder.url(for: image, preset: preset, scale: 3, format: "jpg"))
                    let answer = try await service.get(url.path)
                    XCTAssertEqual(answer.status, 200, "\(url)")
                    let header = try ImageHeader.read(.data(answer.body))
                    let side = min(pixels, try XCTUnwrap(shorterSide[image.path]))
                    XCTAssertEqual([header.width, header.height], [side, side], "\(preset)@3x of \(image), round \(round)")
                }
            }
        }
        XCTAssertEqual(shorterSide.values.filter { $0 >= 600 }.count, 4, "most photos fill the 600 px grid cell")
        let downloads = await server.received.filter { $0.path.hasPrefix("/images/") }.map(\.path)
        XCTAssertEqual(downloads.sorted(), imageURLs.map(\.path).sorted(), "each image downloaded once for 2 sizes × 2 rounds")
        let metrics = try await service.metrics()
        XCTAssertTrue(metrics.contains("market_images_sources_total{outcome=\"downloaded\"} \(imageURLs.count)"), metrics)
    }
}

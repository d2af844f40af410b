import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import XCTest

/// The preview shows a products folder as `publish` reads it: a linked product folder is no
/// product, a photo linked from outside is named and not shown, one bad key in `product.json` does
/// not hide the good fields, and a sale reads as the apps show it.
final class PreviewFolderRuleTests: FolderTestCase {
    private static func page(_ client: any TestClientProtocol, _ token: String, _ path: String) async throws -> String {
        try await client.execute(uri: path, method: .get, headers: [.cookie: "market_images_preview=\(token)"]) { String(buffer: $0.body) }
    }

    func testLinksOutOfTheFolderAreNamedAndNotShown() async throws {
        try copy("photos/DSCN0010.jpg", to: "mug/IMG_1.jpg")
        try #"{"name":"Mug","description":"A mug for the preview.","price":9000,"stock":2}"#.write(toFile: input + "/mug/product.json", atomically: true, encoding: .utf8)
        let outside = root + "/elsewhere"
        try Fixture.plantLinkTargets(outside: outside)
        try FileManager.default.createSymbolicLink(atPath: input + "/mug/IMG_2.jpg", withDestinationPath: outside + "/id-card.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/private", withDestinationPath: outside + "/private")
        try await withPreview { client, token, _ in
            let index = try await Self.page(client, token, "/")
            XCTAssertFalse(index.contains("Private"), index)
            let product = try await Self.page(client, token, "/product/mug")
            XCTAssertTrue(product.contains("IMG_2.jpg: is a link to"), "named among what to fix: \(product)")
            XCTAssertFalse(product.contains("IMG_2.jpg\""), "and neither prepared nor shown: \(product)")
        }
    }

    func testGoodFieldsAreShownBesideABadKeyAndAPhotosWarningIsNamedByItsFile() async throws {
        try copy("photos/DSCN0010.jpg", to: "lamp/IMG_1.jpg")
        try copy("crafted/strip-1x20000.png", to: "lamp/strip.png")
        try #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":12000,"stock":3,"colour":"red"}"#
            .write(toFile: input + "/lamp/product.json", atomically: true, encoding: .utf8)
        let input = self.input
        try await withPreview { client, token, _ in
            let index = try await Self.page(client, token, "/")
            for expected in ["₩12,000", "3 in stock", "2 problems"] { XCTAssertTrue(index.contains(expected), "\(expected) in:\n\(index)") }
            XCTAssertFalse(index.contains("no price"), index)
            let product = try await Self.page(client, token, "/product/lamp")
            XCTAssertTrue(product.contains("colour") && product.contains("is not a product key"), product)
            XCTAssertTrue(product.contains(">strip.png: 1×2048 is 2048:1"), "the photo's warning once, named by its file: \(product)")
            XCTAssertFalse(product.contains(input + "/lamp/strip.png"), "no full path on the page")
        }
    }

    func testASaleShowsWhatABuyerPaysWithThePriceStruckThrough() async throws {
        try copy("photos/DSCN0010.jpg", to: "lamp/IMG_1.jpg")
        try #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":12000,"sale_price":10800,"stock":2}"#
            .write(toFile: input + "/lamp/product.json", atomically: true, encoding: .utf8)
        try await withPreview { client, token, _ in
            let index = try await Self.page(client, token, "/")
            XCTAssertTrue(index.contains("₩10,800") && index.contains("<s class=\"original\">₩12,000</s>"), index)
        }
    }
}

import Foundation
import MarketUploader
import XCTest

/// What an unanswered register is matched on: what it carried, with time only choosing between twins.
final class ListingMatcherTests: XCTestCase {
    private let sentAt = Date(timeIntervalSince1970: 1_790_000_000)
    private let sent = ListingSnapshot(fields: ProductDraft(name: "Ceramic mug", description: "Hand-thrown, holds 350 ml.", price: 12000,
                                                            stock: 4, salePrice: 11000), images: ["a", "b"])

    private func listing(_ id: Int, createdAt: Date?, price: Double = 12000, bargain: Double = 11000, stock: Int = 4, photos: Int = 2) throws -> ProductResponse {
        var object: [String: Any] = ["id": id, "vendor_id": 7, "name": "Ceramic mug", "description": "Hand-thrown, holds 350 ml.", "currency": "KRW",
                                     "price": price, "bargain_price": bargain, "discounted_price": price - bargain, "stock": stock,
                                     "images": (0..<photos).map { ["id": $0, "url": "https://images.test/\(id)/\($0).jpg"] }]
        object["created_at"] = createdAt.map { ISO8601DateFormatter().string(from: $0) }
        return try JSONDecoder().decode(ProductResponse.self, from: JSONSerialization.data(withJSONObject: object))
    }

    private var matcher: ListingMatcher { ListingMatcher(sent: sent, dialect: .openmarket, sentAt: sentAt, vendorID: 7, excluded: [3]) }

    func testOneMatchIsChosenWhateverItsTime() throws {
        for created in [nil, sentAt.addingTimeInterval(-9 * 3600), sentAt.addingTimeInterval(-3 * 365 * 86400), sentAt.addingTimeInterval(30)] {
            let result = matcher.match([try listing(5, createdAt: created)])
            XCTAssertEqual(result.chosen?.id, 5, "created \(String(describing: created))")
        }
    }

    /// Twins: the one created after the request left (on the server's clock) is chosen; with none or
    /// two such, nothing is.
    func testTimeChoosesOnlyBetweenTwins() throws {
        let old = try listing(5, createdAt: sentAt.addingTimeInterval(-86400))
        let new = try listing(6, createdAt: sentAt.addingTimeInterval(-1800))
        XCTAssertNil(matcher.match([old, new]).chosen, "half an hour before the request, on our clock")
        XCTAssertEqual(matcher.match([old, new], serverClockOffset: -1800).chosen?.id, 6, "the server's clock is half an hour slow")
        let twin = try listing(7, createdAt: sentAt.addingTimeInterval(5))
        XCTAssertNil(matcher.match([old, new, twin], serverClockOffset: -1800).chosen)
        XCTAssertEqual(matcher.match([old, new, twin], serverClockOffset: -1800).matches.map(\.id), [5, 6, 7])
        XCTAssertNil(matcher.match([try listing(3, createdAt: sentAt)]).chosen, "an id recorded elsewhere is never a candidate")
    }

    func testANearMissSaysWhichFieldsDiffer() throws {
        let result = matcher.match([try listing(5, createdAt: sentAt, price: 12500, bargain: 12500, stock: 3, photos: 1)])
        XCTAssertNil(result.chosen)
        XCTAssertEqual(result.nearMisses.first?.differences.map { "\($0.field): \($0.from) → \($0.to)" },
                       ["price: ₩12,000 → ₩12,500", "sale_price: ₩11,000 → none", "stock: 4 → 3", "photos: 2 → 1"])
    }
}

import Foundation
import MarketUploader
import Publishing
import XCTest

/// The one rule `publish` plans with and `preview` shows: what a folder needs against its record.
final class PublishPlannerTests: XCTestCase {
    private let mug = ProductDraft(name: "Ceramic mug", description: "A mug for slow mornings, 350 ml.", price: 12000, stock: 4)
    private let photo = UploadImage(filename: "1.jpg", data: Data([1, 2, 3]))

    private func plan(_ current: ProductDraft, _ images: [UploadImage], against entry: PublishLedger.Entry?,
                      dialect: Dialect = .openmarket, allowRecreate: Bool = false) -> [PublishStep] {
        PublishPlanner.steps(folder: "mug", entry: entry, snapshot: ListingSnapshot(fields: current, uploads: images), images: images,
                             dialect: dialect, allowRecreate: allowRecreate)
    }

    private func sent(_ draft: ProductDraft, _ images: [UploadImage], state: PublishLedger.Entry.State = .registered) -> PublishLedger.Entry {
        PublishLedger.Entry(state: state, productID: 41, at: Date(), sent: ListingSnapshot(fields: draft, uploads: images))
    }

    func testEachRecordGivesItsStep() {
        var cheaper = mug
        cheaper.price = 9000
        let other = UploadImage(filename: "1.jpg", data: Data([9]))
        XCTAssertEqual(plan(mug, [photo], against: nil).map(\.action), [.register])
        XCTAssertEqual(plan(mug, [photo], against: sent(mug, [photo])).map(\.action), [.unchanged])
        let edit = plan(cheaper, [photo], against: sent(mug, [photo]))
        XCTAssertEqual(edit.map(\.action), [.edit])
        XCTAssertEqual(edit.first?.changes.map(\.field), ["price"])
        XCTAssertEqual(plan(mug, [other], against: sent(mug, [photo])).map(\.action), [.blocked], "G3 cannot change photos")
        XCTAssertEqual(plan(mug, [other], against: sent(mug, [photo]), allowRecreate: true).map(\.action), [.recreate])
        XCTAssertEqual(plan(mug, [other], against: sent(mug, [photo]), dialect: .items).map(\.action), [.replaceImages])
        XCTAssertEqual(plan(mug, [photo], against: sent(mug, [photo], state: .pending)).map(\.action), [.pending],
                       "looking a pending register up is the run's, with the server")
    }
}

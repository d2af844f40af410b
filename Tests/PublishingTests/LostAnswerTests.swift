import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// A register whose answer is lost, as a seller meets it: the server listed the product, publishing
/// never heard. Servers write `created_at` in their own zone (often without saying so), their clocks
/// drift, some write a fixed date, and some point their answer elsewhere: none of that may make the
/// rerun list the product twice.
final class LostAnswerTests: PublishingTestCase {
    private var proxy: AnswerDroppingProxy!

    /// Starts the server and a proxy in front of it; publishing goes through the proxy.
    private func startBehindProxy(offset: TimeInterval, createdAt: @escaping @Sendable (Date) -> String) async throws {
        try await start(.openmarket)
        await server.setClock(offset: offset, createdAt: createdAt)
        proxy = try AnswerDroppingProxy(to: baseURL)
        baseURL = proxy.url
        client = client(at: proxy.url, .openmarket)
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg", "photos/jolla.jpg"])
    }

    /// The first run loses the answer and leaves the product pending; the rerun adopts the one
    /// listing, whatever the server's clock and zone say, and sends no second register.
    func testALostAnswerIsAdoptedWhateverTheServersClockSays() async throws {
        let clocks: [(String, TimeInterval, @Sendable (Date) -> String)] = [
            ("UTC, zone-less", 0, { ServerClock.text($0, zone: "UTC") }),
            ("20 minutes slow, New York", -1200, { ServerClock.text($0, zone: "America/New_York") }),
            ("a fixed date", 0, { _ in "2021-08-12T10:00:00" }),
        ]
        for (name, offset, createdAt) in clocks {
            try await startBehindProxy(offset: offset, createdAt: createdAt)
            proxy.dropAnswers(toNextPOSTs: 1)
            let lost = try await publish()
            XCTAssertEqual(lost.map(\.result), [.failed], name)
            XCTAssertEqual(proxy.droppedAnswers, 1, name)
            XCTAssertTrue(lost[0].error?.contains("it is pending") == true, "\(name): \(lost[0].error ?? "")")
            var listed = await server.products.count
            XCTAssertEqual(listed, 1, "\(name): the server listed it")

            let rerun = try await publish()
            let id = try await XCTUnwrapAsync(server.products.keys.first)
            XCTAssertEqual(rerun.first?.action, .adopt, name)
            XCTAssertEqual(rerun.first?.productID, id, name)
            XCTAssertFalse(rerun.contains(where: \.isUnresolved), "\(name): \(rerun.map(\.detail))")
            let posts = await postCount()
            listed = await server.products.count
            XCTAssertEqual([posts, listed], [1, 1], "\(name): one register, one listing")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// The server lists the product and answers with a redirect to a closed port: one register, a
    /// pending record, no "nothing was sent"; the rerun adopts the listing instead of sending again.
    func testARegisterAnsweredWithARedirectElsewhereIsPendingThenAdopted() async throws {
        try await start(.openmarket)
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let first = try await publish(arming: [.redirect(303, location: "http://127.0.0.1:9/api/products/1", acting: true)])
        XCTAssertEqual(first.map(\.result), [.failed])
        XCTAssertTrue(first[0].error?.contains("it is pending") == true, first[0].error ?? "")
        XCTAssertFalse(first[0].error?.contains("nothing was sent") == true, first[0].error ?? "")
        let ledger = try ledgerText()
        XCTAssertTrue(ledger.contains("\"pending\""), ledger)

        let rerun = try await publish()
        XCTAssertEqual(rerun.first?.action, .adopt)
        XCTAssertFalse(rerun.contains(where: \.isUnresolved), "\(rerun.map(\.detail))")
        let (posts, listed) = (await postCount(), await server.products.count)
        XCTAssertEqual(posts, 1, "the register was sent once")
        XCTAssertEqual(listed, 1)
    }

    /// The listing changed on the server before the rerun: the rerun names the field that differs and
    /// how to record it; a listing named by hand is recorded, and the same run sends the folder's price
    /// back. A listing named for a folder that is not there is refused.
    func testANearMissIsNamedAndAListingNamedByHandIsRecordedAndEdited() async throws {
        try await startBehindProxy(offset: 0, createdAt: { ServerClock.text($0) })
        proxy.dropAnswers(toNextPOSTs: 1)
        let lost = try await publish()
        XCTAssertEqual(lost.map(\.result), [.failed])
        let id = try await XCTUnwrapAsync(server.products.keys.first)
        _ = try await client.edit(id: id, ProductChange(price: 9500), credentials: Self.vendor)

        let rerun = try await publish()
        XCTAssertEqual(rerun.map(\.action), [.pending])
        XCTAssertTrue(rerun.allSatisfy(\.isUnresolved))
        XCTAssertTrue(rerun[0].detail.contains("product \(id) has the name but not the same price (sent ₩9,000, listed ₩9,500)"), rerun[0].detail)
        XCTAssertTrue(rerun[0].detail.contains("--adopt a=ID"), rerun[0].detail)

        let adopted = try await publish { $0.adoptions = ["a": id] }
        XCTAssertEqual(adopted.map(\.action), [.adopt, .edit])
        XCTAssertEqual(adopted.map(\.result), [.done, .done], "\(adopted.map { $0.error ?? $0.detail })")
        XCTAssertEqual(adopted.first?.productID, id)
        let price = await server.products[id]?.fields["price"]
        XCTAssertEqual(price.flatMap(Double.init), 9000, "the edit sent the folder's price")
        let posts = await postCount()
        XCTAssertEqual(posts, 1, "never registered twice")
        let again = try await plan()
        XCTAssertEqual(again.map(\.action), [.unchanged])

        do {
            _ = try await plan { $0.adoptions = ["nosuch": id] }
            XCTFail("a listing named for a folder that is not there must be refused")
        } catch {
            XCTAssertEqual(error as? PublishingError, .noFolderToAdopt(folder: "nosuch", productID: id))
            XCTAssertTrue("\(error)".contains("there is no product folder nosuch"), "\(error)")
        }
    }
}

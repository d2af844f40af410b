import Foundation
import MarketUploader
import TestSupport
import XCTest

/// A register whose answer a proxy loses, as a seller meets it: the server listed the product, the
/// tool never heard. Servers write `created_at` in their own zone (often without saying so), their
/// clocks drift, and some write a fixed date: none of that may make the rerun list the product twice.
final class LostAnswerTests: CommandLineTestCase {
    private var proxy: AnswerDroppingProxy!

    /// Starts the server and a proxy in front of it; every command goes through the proxy.
    private func startBehindProxy(offset: TimeInterval, createdAt: @escaping @Sendable (Date) -> String) async throws -> OpenMarketClient {
        let client = try await startServer(.openmarket)
        await server.setClock(offset: offset, createdAt: createdAt)
        proxy = try AnswerDroppingProxy(to: baseURL)
        baseURL = proxy.url
        _ = try productFolder("a", photos: ["photos/DSCN0010.jpg", "photos/jolla.jpg"])
        return client
    }

    /// The first publish loses the answer and leaves the product pending; the rerun adopts the one
    /// listing, whatever the server's clock and zone say, and sends no second register.
    func testALostAnswerIsAdoptedWhateverTheServersClockSays() async throws {
        let clocks: [(String, TimeInterval, @Sendable (Date) -> String)] = [
            ("UTC, zone-less", 0, { ServerClock.text($0, zone: "UTC") }),
            ("20 minutes slow, New York", -1200, { ServerClock.text($0, zone: "America/New_York") }),
            ("a fixed date", 0, { _ in "2021-08-12T10:00:00" }),
        ]
        for (name, offset, createdAt) in clocks {
            _ = try await startBehindProxy(offset: offset, createdAt: createdAt)
            proxy.dropAnswers(toNextPOSTs: 1)
            let lost = try tool(["publish", products])
            XCTAssertEqual(lost.status, 1, "\(name): \(lost.stderr)")
            XCTAssertEqual(proxy.droppedAnswers, 1, name)
            XCTAssertTrue(lost.stderr.contains("it is pending"), "\(name): \(lost.stderr)")
            var listed = await server.products.count
            XCTAssertEqual(listed, 1, "\(name): the server listed it")

            let rerun = try tool(["publish", products])
            XCTAssertEqual(rerun.status, 0, "\(name): \(rerun.stdout)\n\(rerun.stderr)")
            let id = try await XCTUnwrapAsync(server.products.keys.first)
            XCTAssertTrue(rerun.stdout.contains("a: adopted product \(id)"), "\(name): \(rerun.stdout)")
            let posts = await server.received.filter { $0.method == "POST" }.count
            listed = await server.products.count
            XCTAssertEqual([posts, listed], [1, 1], "\(name): one register, one listing")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// The listing changed on the server before the rerun: the rerun names the field that differs and
    /// how to record it; `--adopt a=ID` records it, and the same run sends the folder's price back.
    func testANearMissIsNamedAndAdoptRecordsItByHand() async throws {
        let client = try await startBehindProxy(offset: 0, createdAt: { ServerClock.text($0) })
        proxy.dropAnswers(toNextPOSTs: 1)
        XCTAssertEqual(try tool(["publish", products]).status, 1)
        let id = try await XCTUnwrapAsync(server.products.keys.first)
        var change = ProductChange()
        change.price = 9500
        _ = try await client.edit(id: id, change, credentials: Self.vendor)

        let rerun = try tool(["publish", products])
        XCTAssertEqual(rerun.status, 1, rerun.stderr)
        XCTAssertTrue(rerun.stdout.contains("product \(id) has the name but not the same price (sent ₩9,000, listed ₩9,500)"), rerun.stdout)
        XCTAssertTrue(rerun.stdout.contains("--adopt a=ID"), rerun.stdout)

        let adopted = try tool(["publish", products, "--adopt", "a=\(id)"])
        XCTAssertEqual(adopted.status, 0, adopted.stdout + adopted.stderr)
        XCTAssertTrue(adopted.stdout.contains("a: adopted product \(id)"), adopted.stdout)
        let price = await server.products[id]?.fields["price"]
        XCTAssertEqual(price.flatMap(Double.init), 9000, "the edit sent the folder's price: \(adopted.stdout)")
        let posts = await server.received.filter { $0.method == "POST" }.count
        XCTAssertEqual(posts, 1, "never registered twice")
        let again = try tool(["publish", products])
        XCTAssertTrue(again.stdout.contains(" unchanged "), again.stdout)

        let wrong = try tool(["publish", products, "--adopt", "nosuch=\(id)"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("no product folder nosuch"), wrong.stderr)
        let malformed = try tool(["publish", products, "--adopt", "a=x"])
        XCTAssertEqual(malformed.status, 2, malformed.stderr)
    }
}

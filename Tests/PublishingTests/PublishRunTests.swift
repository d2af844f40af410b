import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// The planner and executor in process, through `MarketUploader`'s real client and its one seam,
/// `HTTPTransport`: a transport that records every request, answers as an OpenMarket (G3) server
/// does, and fails on cue. Real photos are prepared into a real cache; nothing is started.
final class PublishRunTests: FolderTestCase {
    private let server = URL(string: "https://openmarket.test")!
    private let credentials = Credentials.vendor(identifier: "vendor-7", secret: Secret("publishing-test-secret"))

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "mug/1.jpg")
        let fields = ["name": "Ceramic mug", "description": "A mug for slow mornings, 350 ml.", "price": 12000, "stock": 4] as [String: Any]
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: input + "/mug/product.json"))
    }

    private func run(_ transport: RecordingTransport) throws -> PublishRun {
        try PublishRun(productsFolder: input, server: server, client: OpenMarketClient(baseURL: server, dialect: .openmarket, transport: transport),
                       credentials: credentials, photos: PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache"))
    }

    func testANewFolderIsRegisteredOnceAndThenUnchanged() async throws {
        let transport = RecordingTransport()
        var first = try run(transport)
        let plan = try await first.plan(folders: [input + "/mug"])
        XCTAssertEqual(plan.map(\.action), [.register])
        let planned = await transport.sent
        XCTAssertEqual(planned, ["GET /api/products"], "planning only looks for a listing of the new folder")
        let applied = await first.apply(plan[0])
        XCTAssertEqual([applied.result], [.done], applied.error ?? "")
        XCTAssertEqual(applied.productID, 41)
        let registered = await transport.sent
        XCTAssertEqual(registered, ["GET /api/products", "POST /api/products"])

        var second = try run(transport)
        let again = try await second.plan(folders: [input + "/mug"])
        XCTAssertEqual(again.map(\.action), [.unchanged], "the ledger remembers what was sent, and the server holds it")
        let total = await transport.sent
        XCTAssertEqual(total, ["GET /api/products", "POST /api/products", "GET /api/products"], "one list page read, nothing sent")
    }

    /// A register whose answer never came may have listed the product: it stays pending, and the next
    /// run finds the listing it made instead of listing it twice.
    func testAnUnansweredRegisterIsAdoptedNotSentTwice() async throws {
        let transport = RecordingTransport()
        await transport.failNextWrite()
        var first = try run(transport)
        let plan = try await first.plan(folders: [input + "/mug"])
        let failed = await first.apply(plan[0])
        XCTAssertEqual(failed.result, .failed)
        XCTAssertTrue(failed.error?.contains("may have listed it") == true, failed.error ?? "")

        var second = try run(transport)
        let adopted = try await second.plan(folders: [input + "/mug"])
        XCTAssertEqual(adopted.map(\.action), [.adopt, .unchanged])
        XCTAssertEqual(adopted.first?.productID, 41)
        let sent = await transport.sent
        XCTAssertEqual(sent.filter { $0.hasPrefix("POST") }.count, 1, "never registered twice: \(sent)")
        XCTAssertTrue(sent.contains { $0.hasPrefix("GET /api/products") }, "looked up: \(sent)")
    }

    /// A photo that cannot be prepared blocks its folder with the reason; nothing is sent.
    func testAFolderWithABrokenPhotoIsBlockedWithTheReason() async throws {
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: input + "/mug/2.jpg"))
        let transport = RecordingTransport()
        var publish = try run(transport)
        let plan = try await publish.plan(folders: [input + "/mug"])
        XCTAssertEqual(plan.map(\.action), [.blocked])
        XCTAssertTrue(plan[0].detail.contains("2.jpg") && plan[0].detail.contains("nothing was sent"), plan[0].detail)
        let sent = await transport.sent
        XCTAssertEqual(sent, [])
    }
}

/// Answers as a G3 server: a register creates product 41 as sent; a list page holds what was created.
/// `failNextWrite` makes the next POST reach the server (the product is created) but lose its answer.
actor RecordingTransport: HTTPTransport {
    private(set) var sent: [String] = []
    private var created: [String: Any]?
    private var failWrite = false

    func failNextWrite() { failWrite = true }

    func send(_ request: OpenMarketRequest, limits: ExchangeLimits) async throws(TransportError) -> HTTPResponse {
        sent.append("\(request.method) \(request.url.path)")
        switch request.method {
        case "POST":
            let product: [String: Any] = [
                "id": 41, "vendor_id": 7, "name": "Ceramic mug", "description": "A mug for slow mornings, 350 ml.", "thumbnail": "https://images.test/41/t.jpg",
                "currency": "KRW", "price": 12000.0, "bargain_price": 12000.0, "discounted_price": 0.0, "stock": 4, "images": [],
                "created_at": ServerClock.text(Date()), "issued_at": ServerClock.text(Date()),
            ]
            created = product
            if failWrite {
                failWrite = false
                throw TransportError(.failed, message: "the connection was reset")
            }
            return HTTPResponse(status: 201, body: try! JSONSerialization.data(withJSONObject: product))
        default:
            let page: [String: Any] = ["pageNo": 1, "itemsPerPage": 100, "totalCount": created == nil ? 0 : 1, "hasNext": false, "hasPrev": false,
                                       "pages": created.map { [$0] } ?? []]
            return HTTPResponse(status: 200, body: try! JSONSerialization.data(withJSONObject: page))
        }
    }
}

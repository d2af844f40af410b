import Foundation
import MarketUploader
import XCTest

/// Starts an OpenMarket test server per test and gives a client pointed at it.
class UploaderTestCase: XCTestCase {
    var server: OpenMarketTestServer!
    var baseURL: URL!

    static let vendor = Credentials.vendor(identifier: OpenMarketTestServer.identifier, secret: Secret(OpenMarketTestServer.vendorSecret))
    static let password = Credentials.password(Secret(OpenMarketTestServer.password))

    func startServer(_ dialect: Dialect) async throws -> OpenMarketClient {
        server = try OpenMarketTestServer(dialect: dialect)
        baseURL = try await server.start()
        let server = self.server!
        addTeardownBlock { await server.stop() }
        var client = OpenMarketClient(baseURL: baseURL, dialect: dialect)
        client.retryDelay = 0.01
        client.timeout = 5
        return client
    }

    func credentials(for dialect: Dialect) -> Credentials {
        dialect == .items ? Self.password : Self.vendor
    }

    static func fixture(_ name: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Fixtures").appendingPathComponent(name))
    }

    static func jpeg(_ name: String = "photo.jpg") throws -> UploadImage {
        UploadImage(filename: name, data: try fixture("photos/DSCN0010.jpg"))
    }

    static let draft = ProductDraft(name: "Ceramic mug", description: "Hand-thrown, holds 350 ml.", price: 12000,
                                    currency: .KRW, stock: 4, discountedPrice: 1000)
}

/// XCTUnwrap for a value that had to be awaited first.
func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}

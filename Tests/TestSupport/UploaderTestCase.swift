import Foundation
import MarketUploader
import XCTest

/// Starts an OpenMarket test server per test and gives a client pointed at it.
open class UploaderTestCase: XCTestCase {
    public var server: OpenMarketTestServer!
    public var baseURL: URL!

    public static let vendor = Credentials.vendor(identifier: OpenMarketTestServer.identifier, secret: Secret(OpenMarketTestServer.vendorSecret))
    public static let password = Credentials.password(Secret(OpenMarketTestServer.password))

    public func startServer(_ dialect: Dialect) async throws -> OpenMarketClient {
        server = try OpenMarketTestServer(dialect: dialect)
        baseURL = try await server.start()
        let server = self.server!
        addTeardownBlock { await server.stop() }
        return client(at: baseURL, dialect)
    }

    /// A client of `dialect` at `url` (the server, or something in front of it), quick to retry.
    public func client(at url: URL, _ dialect: Dialect) -> OpenMarketClient {
        var client = OpenMarketClient(baseURL: url, dialect: dialect)
        client.retryDelay = 0.01
        client.settleDelay = 0.01
        client.timeout = 5
        return client
    }

    public func credentials(for dialect: Dialect) -> Credentials {
        dialect == .items ? Self.password : Self.vendor
    }

    public static func fixture(_ name: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Fixtures").appendingPathComponent(name))
    }

    public static func jpeg(_ name: String = "photo.jpg") throws -> UploadImage {
        UploadImage(filename: name, data: try fixture("photos/DSCN0010.jpg"))
    }

    public static let draft = ProductDraft(name: "Ceramic mug", description: "Hand-thrown, holds 350 ml.", price: 12000,
                                    currency: .KRW, stock: 4, salePrice: 11000)
}

/// The loopback server and a fresh folder per test holding a products folder, laid out as a seller
/// lays it out. Every file written under the folder is checked for the secrets at the end.
open class ProductFoldersTestCase: UploaderTestCase {
    public var root = ""

    open override func setUp() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("products-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let root = self.root
        addTeardownBlock {
            Self.assertNoSecretOnDisk(under: root)
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    public func productFolder(_ name: String, photos: [String], json: String? = nil) throws -> String {
        let folder = root + "/products/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, photo) in photos.enumerated() {
            try Self.fixture(photo).write(to: URL(fileURLWithPath: "\(folder)/IMG_\(index + 1).\((photo as NSString).pathExtension)"))
        }
        let product = json ?? #"{"name":"Product \#(name)","description":"A fine product called \#(name).","price":9000,"currency":"KRW","stock":2}"#
        try product.write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
        return folder
    }

    public var products: String { root + "/products" }

    /// The publish record's times set back to January: the servers may not show a new listing for a
    /// moment, so only an older one is taken as deleted, or its unanswered register sent again.
    public func backdateRecord() throws {
        let path = products + "/.openmarket-published.json"
        let ledger = try String(contentsOfFile: path, encoding: .utf8)
        try NSRegularExpression(pattern: #""at" : "[^"]+""#)
            .stringByReplacingMatches(in: ledger, range: NSRange(ledger.startIndex..., in: ledger), withTemplate: #""at" : "2026-01-01T00:00:00Z""#)
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The ledger, the prepared-photo cache, everything the commands wrote: no secret in any of it.
    public static func assertNoSecretOnDisk(under root: String) {
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            guard let data = FileManager.default.contents(atPath: root + "/" + relative) else { continue }
            TestSecrets.assertAbsent(in: String(decoding: data, as: UTF8.self), relative)
        }
    }
}

/// Runs the command-line tool against the loopback server, in a fresh folder per test. Every output
/// and every file the tool wrote is checked for the secrets.
open class CommandLineTestCase: ProductFoldersTestCase {
    /// Runs a command with the test server and credentials; commands that prepare photos also get the
    /// test's photo cache.
    public func tool(_ arguments: [String], dialect: Dialect = .openmarket) throws -> CommandLineTool.Result {
        let preparesPhotos = !["list", "show", "delete"].contains(arguments.first ?? "")
        return try CommandLineTool.run(arguments + ["--server", baseURL.absoluteString, "--dialect", dialect.rawValue]
                                       + (preparesPhotos ? ["--cache", root + "/cache"] : []),
                                             environment: ["OPENMARKET_IDENTIFIER": OpenMarketTestServer.identifier,
                                                           "OPENMARKET_SECRET": OpenMarketTestServer.vendorSecret,
                                                           "OPENMARKET_PASSWORD": OpenMarketTestServer.password])
    }
}

/// XCTUnwrap for a value that had to be awaited first.
public func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}

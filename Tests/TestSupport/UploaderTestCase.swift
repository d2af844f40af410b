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
        var client = OpenMarketClient(baseURL: baseURL, dialect: dialect)
        client.retryDelay = 0.01
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

/// Runs the command-line tool against the loopback server, in a fresh folder per test. Every output
/// and every file the tool wrote is checked for the secrets.
open class CommandLineTestCase: UploaderTestCase {
    public var root = ""

    open override func setUp() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)").path
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

    public var products: String { root + "/products" }

    /// Starts `publish` with the server holding back its answer to the first register, kills the tool
    /// once the request has left, and waits until the server has listed the product anyway.
    public func publishKilledDuringRegister(_ dialect: Dialect) async throws {
        let release = Gate(), arrived = Gate(), handled = Gate()
        await server.arm(.hold(until: release, arrived: arrived, handled: handled))
        let running = try CommandLineTool.launch(["publish", products, "--server", baseURL.absoluteString,
                                                  "--dialect", dialect.rawValue, "--cache", root + "/cache"],
                                                 environment: ["OPENMARKET_IDENTIFIER": TestSecrets.identifier,
                                                               "OPENMARKET_SECRET": TestSecrets.vendorSecret,
                                                               "OPENMARKET_PASSWORD": TestSecrets.password])
        // The register is at the server (the ledger said "pending" before it left): kill the tool
        // before any answer, then let the server list the product all the same.
        await arrived.wait()
        running.kill()
        XCTAssertEqual(running.wait().signal, SIGKILL)
        await release.open()
        await handled.wait()
    }

    /// The ledger, the prepared-photo cache, everything the commands wrote: no secret in any of it.
    public static func assertNoSecretOnDisk(under root: String) {
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            guard let data = FileManager.default.contents(atPath: root + "/" + relative) else { continue }
            TestSecrets.assertAbsent(in: String(decoding: data, as: UTF8.self), relative)
        }
    }
}

/// XCTUnwrap for a value that had to be awaited first.
public func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}

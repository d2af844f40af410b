import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Publishing in process as `publish` does it: against the loopback OpenMarket server through the
/// real client and URLSession, real photos prepared into a real cache, the record on disk.
class PublishingTestCase: ProductFoldersTestCase {
    var client: OpenMarketClient!

    func start(_ dialect: Dialect = .openmarket) async throws {
        client = try await startServer(dialect)
    }

    /// What the photos are prepared with (a test may set a listing, say).
    var prepareOptions = PrepareOptions()
    var photoCache: PhotoCache { PhotoCache(prepareOptions: prepareOptions, root: root + "/cache") }

    /// A run over the products folder, with the options `configure` sets.
    func publishRun(_ configure: (inout PublishRun) -> Void = { _ in }) throws -> PublishRun {
        var run = try PublishRun(productsFolder: products, server: baseURL, client: client, credentials: credentials(for: client.requests.dialect),
                                 photos: photoCache)
        configure(&run)
        return run
    }

    /// The plan for the products folder.
    func plan(_ configure: (inout PublishRun) -> Void = { _ in }) async throws -> [PublishStep] {
        var run = try publishRun(configure)
        return Self.withoutSecrets(try await run.plan(folders: ProductsFolder(products).productFolders))
    }

    /// The plan for the products folder, each step applied in turn: the steps as they ended. `faults`
    /// are armed once planned, for the requests that apply the steps (planning reads the server).
    func publish(arming faults: [OpenMarketTestServer.Fault] = [], _ configure: (inout PublishRun) -> Void = { _ in }) async throws -> [PublishStep] {
        var run = try publishRun(configure)
        var steps = try await run.plan(folders: ProductsFolder(products).productFolders)
        for fault in faults { await server.arm(fault) }
        for index in steps.indices { steps[index] = await run.apply(steps[index]) }
        return Self.withoutSecrets(steps)
    }

    /// `steps`, checked for the secrets: what a step says is what `publish` prints.
    private static func withoutSecrets(_ steps: [PublishStep]) -> [PublishStep] {
        for step in steps { TestSecrets.assertAbsent(in: ([step.detail, step.error ?? ""] + step.warnings).joined(separator: "\n"), "step \(step.folder)") }
        return steps
    }

    /// The publish record as written.
    func ledgerText() throws -> String {
        try String(contentsOfFile: products + "/" + PublishLedger.fileName, encoding: .utf8)
    }

    /// Registers the server received.
    func postCount() async -> Int {
        await server.received.filter { $0.method == "POST" }.count
    }
}

extension [PublishStep] {
    func step(_ folder: String) -> PublishStep? { first { $0.folder == folder } }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import Logging
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// Thumbnails of images an origin hosts, as the apps ask for them: the service in process, the
/// origin a real HTTP server on loopback that counts what it was asked. Time is a clock the test
/// moves, so "after the TTL" needs no waiting.
final class RemoteSourceCacheTests: FolderTestCase, @unchecked Sendable {
    private static let key = "72656d6f7465", salt = "73616c74"
    private let signer = try! ThumbnailURLSigner(hexKey: RemoteSourceCacheTests.key, hexSalt: RemoteSourceCacheTests.salt)
    private var origin: ImageOrigin!
    private let now = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    override func setUp() async throws {
        try super.setUpWithError()
        origin = try ImageOrigin()
        try await origin.start()
        origin.host(try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg"))), at: "/images/1.jpg")
    }

    override func tearDown() async throws {
        await origin.stop()
    }

    private func configuration() -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.allowedSources = [origin.base.absoluteString + "/images/"]
        configuration.allowPrivateSources = true
        configuration.keys = [SigningKey(key: Data(hex: Self.key), salt: Data(hex: Self.salt))]
        configuration.metricsBind = nil
        configuration.cacheFolder = root + "/cache"
        configuration.sourceTTL = 3600
        configuration.sourceStaleIfError = 600
        configuration.presets = ["thumb": "rs:fit:120:120"]
        let now = self.now
        configuration.clock = { now.withLock { $0 } }
        return configuration
    }

    private func advance(_ seconds: Double) { now.withLock { $0 += seconds } }

    private func path(_ options: [String], image: String = "1.jpg") -> String {
        signer.signedPath(options: options, source: origin.base.absoluteString + "/images/" + image)
    }

    private func withService(_ configuration: ServiceConfiguration? = nil,
                             _ body: @escaping @Sendable (ThumbnailService, any TestClientProtocol) async throws -> Void) async throws {
        let service = try ThumbnailService(configuration ?? self.configuration(), logger: Logger(label: "test"))
        let router = Router()
        service.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in try await body(service, client) }
    }

    /// An origin that sends a byte every 50 ms, allowed beside the image origin, and downloads cut at
    /// `timeout` seconds.
    private func tricklingOrigin(timeout: Int, maxDownloads: Int) throws -> (StreamingAnswerServer, ServiceConfiguration) {
        let trickle = try StreamingAnswerServer(.trickle(interval: 0.05))
        var configuration = configuration()
        configuration.allowedSources.append(trickle.url.absoluteString + "/")
        configuration.downloadTimeout = .seconds(timeout)
        configuration.maxDownloads = maxDownloads
        return (trickle, configuration)
    }

    /// `downloadTimeout` bounds the whole download: an origin that sends a byte every 50 ms is cut
    /// at the deadline (504), the connection dropped, and its slot is free for the next source.
    func testADownloadThatTricklesIsCutAtTheDeadline() async throws {
        let (trickle, configuration) = try tricklingOrigin(timeout: 2, maxDownloads: 1)
        let slow = signer.signedPath(options: ["pr:list"], source: trickle.url.absoluteString + "/slow.jpg")
        let started = ContinuousClock.now
        try await withService(configuration) { _, client in
            let answer = try await client.execute(uri: slow, method: .get) { $0 }
            XCTAssertEqual(answer.status, .gatewayTimeout, String(buffer: answer.body))
            XCTAssertTrue(String(buffer: answer.body).contains("longer than 2 s"), String(buffer: answer.body))
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(4))
            try await waitUntil("the origin to see the download dropped", seconds: 5) { trickle.clientLeftAt != nil }
            let next = try await client.execute(uri: self.path(["pr:list"]), method: .get) { $0.status }
            XCTAssertEqual(next, .ok, "the one slot was given back")
        }
        XCTAssertGreaterThan(trickle.bytesWritten, 10, "the origin did trickle")
    }

    /// A slow origin holds only its share of the download slots: with two slow downloads from it in
    /// flight, a third from it is 503 `origin-busy` at once, while another origin is served.
    func testASlowOriginCannotTakeEverySlot() async throws {
        let (trickle, origins) = try tricklingOrigin(timeout: 3, maxDownloads: 4)
        var configuration = origins
        configuration.maxDownloadsPerOrigin = 2
        let slow = (1...3).map { signer.signedPath(options: ["pr:list"], source: trickle.url.absoluteString + "/slow-\($0).jpg") }
        try await withService(configuration) { _, client in
            let held = slow.prefix(2).map { uri in Task { try await client.execute(uri: uri, method: .get) { $0.status } } }
            try await waitUntil("both slow downloads to reach the origin", seconds: 5) { trickle.requestsAnswered == 2 }
            let third = try await client.execute(uri: slow[2], method: .get) { $0 }
            XCTAssertEqual(third.status, .serviceUnavailable)
            XCTAssertEqual(third.headers[.retryAfter], "1")
            XCTAssertTrue(String(buffer: third.body).contains("origin-busy"), String(buffer: third.body))
            let other = try await client.execute(uri: self.path(["pr:list"]), method: .get) { $0.status }
            XCTAssertEqual(other, .ok, "another origin still has slots")
            for download in held {
                let status = try await download.value
                XCTAssertEqual(status, .gatewayTimeout)
            }
            XCTAssertEqual(trickle.requestsAnswered, 2, "the third never reached the slow origin")
        }
    }

    /// A fragment is not the origin's business: every spelling is one download and one output. A
    /// query string would be one more download and output per value, so it is refused unless the
    /// allowed prefix ends with `?` (an origin that renders by its parameters).
    func testFragmentsAreOneSourceAndQueriesOnlyWhereAllowed() async throws {
        let base = origin.base.absoluteString + "/images/1.jpg", dotted = origin.base.absoluteString + "/images/./1.jpg"
        try await withService { _, client in
            var tags: Set<String> = []
            for source in [base, base + "#a", base + "#b", dotted] {
                let answer = try await client.execute(uri: self.signer.signedPath(options: ["pr:list"], source: source), method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok, source)
                tags.insert(answer.headers[.eTag] ?? "")
            }
            XCTAssertEqual(tags.count, 1, "one output for every spelling")
            let refused = try await client.execute(uri: self.signer.signedPath(options: ["pr:list"], source: base + "?v=2"), method: .get) { $0 }
            XCTAssertEqual(refused.status, .notFound)
            XCTAssertTrue(String(buffer: refused.body).contains("source-not-allowed"))
        }
        XCTAssertEqual(origin.requests.count, 1, "\(origin.requests.map(\.path))")

        var withQueries = configuration()
        withQueries.allowedSources = [origin.base.absoluteString + "/images/?"]
        try await withService(withQueries) { _, client in
            let status = try await client.execute(uri: self.signer.signedPath(options: ["pr:list"], source: base + "?v=2"), method: .get) { $0.status }
            XCTAssertEqual(status, .ok, "a prefix ending with ? lets the query choose the image")
        }
    }

    /// 1 miss, 50 hits and 10 revalidations of one URL, then 4 presets at 3 scales (12 new outputs):
    /// one request to the origin in all.
    func testOneDownloadThenNoneWithinTheTTL() async throws {
        let list = path(["pr:list", "dpr:3"])
        try await withService { service, client in
            let first = try await client.execute(uri: list, method: .get) { $0 }
            XCTAssertEqual(first.status, .ok)
            let etag = try XCTUnwrap(first.headers[.eTag])
            for _ in 0..<50 {
                let hit = try await client.execute(uri: list, method: .get) { $0 }
                XCTAssertEqual([hit.status.code], [200])
                XCTAssertEqual(hit.headers[.eTag], etag)
            }
            for _ in 0..<10 {
                let revalidated = try await client.execute(uri: list, method: .get, headers: [.ifNoneMatch: etag]) { $0.status }
                XCTAssertEqual(revalidated, .notModified)
            }
            for preset in ["list", "grid", "thumb", "upload"] {
                for scale in 1...3 {
                    let answer = try await client.execute(uri: self.path(["pr:\(preset)", "dpr:\(scale)"]), method: .get) { $0 }
                    XCTAssertEqual(answer.status, .ok, "\(preset) @\(scale)x")
                    let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
                    if preset == "list" { XCTAssertEqual([image.width, image.height], [80 * scale, 80 * scale]) }
                }
            }
            XCTAssertEqual(self.origin.requests.count, 1, "one download, then none: \(self.origin.requests.map(\.path))")
            let metrics = service.renderMetrics()
            XCTAssertTrue(metrics.contains(#"market_images_sources_total{outcome="downloaded"} 1"#), metrics)
        }
    }

    /// After the TTL the origin is asked with its validator: a 304 keeps the copy and every ETag; a
    /// changed image gives new outputs with new ETags.
    /// A record confirmed in the future (an instance whose clock runs fast, sharing the folder or
    /// bucket) is fresh only within a minute's skew: it cannot put off revalidation for long.
    func testARecordFromTheFutureIsNotFresh() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg")))
        let now = Date(timeIntervalSince1970: 1_000_000)
        let freshness = SourceFreshness(ttl: 300, staleIfError: 600)
        let record = { (offset: Double) in
            try SourceCache.record(url: "https://example.com/a.jpg", bytes: bytes, etag: nil, lastModified: nil, now: now + offset)
        }
        XCTAssertTrue(freshness.isFresh(try record(-100), now: now))
        XCTAssertTrue(freshness.isFresh(try record(30), now: now), "within the skew")
        XCTAssertFalse(freshness.isFresh(try record(86_400 * 365), now: now))
        XCTAssertFalse(freshness.isUsableOnError(try record(86_400 * 365), now: now))
        XCTAssertFalse(freshness.isFresh(try record(-301), now: now))
        XCTAssertTrue(freshness.isUsableOnError(try record(-301), now: now))
    }

    func testAfterTheTTLTheOriginIsAskedConditionallyAndAChangeIsSeen() async throws {
        let grid = path(["pr:grid"])
        try await withService { _, client in
            let first = try await client.execute(uri: grid, method: .get) { $0 }
            self.advance(3601)
            let again = try await client.execute(uri: grid, method: .get) { $0 }
            XCTAssertEqual(again.headers[.eTag], first.headers[.eTag])
            XCTAssertEqual(self.origin.requests.map(\.status), [200, 304])
            XCTAssertEqual(self.origin.requests.last?.ifNoneMatch, "\"v1\"")
            XCTAssertNotNil(self.origin.requests.last?.ifModifiedSince)
            // Fresh again for another TTL from the 304.
            self.advance(3000)
            _ = try await client.execute(uri: grid, method: .get) { $0 }
            XCTAssertEqual(self.origin.requests.count, 2)

            self.origin.host(try Data(contentsOf: URL(fileURLWithPath: Fixture.path("orientation/Landscape_6.jpg"))), at: "/images/1.jpg")
            self.advance(700)
            let changed = try await client.execute(uri: grid, method: .get) { $0 }
            XCTAssertEqual(self.origin.requests.map(\.status), [200, 304, 200])
            XCTAssertNotEqual(changed.headers[.eTag], first.headers[.eTag])
            XCTAssertNotEqual(changed.body, first.body, "the new image, not the old output")
        }
    }

    /// An origin that fails after the TTL: the copy is served for stale-if-error more, then 502 (for
    /// outputs made earlier too: they are as old as the copy); an
    /// origin that says the image is gone is believed at once, and the copy forgotten.
    func testAFailingOriginIsBridgedByTheCopyAndAGoneImageIsNot() async throws {
        let list = path(["pr:list"])
        try await withService { service, client in
            let first = try await client.execute(uri: list, method: .get) { $0 }
            self.origin.set(.failing(status: 503))
            self.advance(3601)
            let stale = try await client.execute(uri: self.path(["pr:grid"]), method: .get) { $0 }
            XCTAssertEqual(stale.status, .ok, "served from the copy while the origin fails")
            self.advance(600)
            let tooOld = try await client.execute(uri: self.path(["pr:thumb"]), method: .get) { $0.status }
            XCTAssertEqual(tooOld, .badGateway)
            let cached = try await client.execute(uri: list, method: .get) { $0.status }
            XCTAssertEqual(cached, .badGateway, "past the window an output made earlier is as stale as its source")
            XCTAssertNotNil(first.headers[.eTag])
            XCTAssertTrue(service.renderMetrics().contains(#"market_images_sources_total{outcome="stale"} 1"#))

            self.origin.set(.gone)
            let gone = try await client.execute(uri: self.path(["pr:upload"]), method: .get) { $0.status }
            XCTAssertEqual(gone, .notFound)
            self.origin.set(.serving)
            _ = try await client.execute(uri: self.path(["pr:upload"]), method: .get) { $0.status }
            XCTAssertNil(self.origin.requests.last?.ifNoneMatch, "the copy was forgotten: a plain download")
        }
    }

    /// Two instances sharing a cache folder share the sources: the second never asks the origin.
    func testInstancesSharingTheCacheFolderDownloadOnce() async throws {
        try await withService { _, client in
            let status = try await client.execute(uri: self.path(["pr:list"]), method: .get) { $0.status }
            XCTAssertEqual(status, .ok)
        }
        try await withService { _, client in
            let other = try await client.execute(uri: self.path(["pr:thumb", "dpr:2"]), method: .get) { $0 }
            XCTAssertEqual(other.status, .ok)
        }
        XCTAssertEqual(origin.requests.count, 1)
    }

    /// A cache folder that cannot be written (read-only, full): every request is still answered, at
    /// the price of a download each.
    func testAnUnwritableCacheStillServesAtTheCostOfDownloads() async throws {
        var configuration = configuration()
        configuration.cacheFolder = try mountedFolder(size: "1m", readOnly: true)
        try await withService(configuration) { _, client in
            for preset in ["list", "list", "grid"] {
                let status = try await client.execute(uri: self.path(["pr:\(preset)"]), method: .get) { $0.status }
                XCTAssertEqual(status, .ok)
            }
        }
        XCTAssertEqual(origin.downloads, 3)
    }

    /// A damaged copy is never rendered: it is removed and the source downloaded again.
    func testADamagedCopyIsDownloadedAgain() async throws {
        try await withService { _, client in
            _ = try await client.execute(uri: self.path(["pr:list"]), method: .get) { $0.status }
        }
        let sources = root + "/cache/sources"
        let files = try XCTUnwrap(FileManager.default.subpaths(atPath: sources)?.filter { $0.split(separator: "/").count == 3 })
        XCTAssertEqual(files.count, 1)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: sources + "/" + files[0]))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("garbage".utf8))
        try handle.close()
        try await withService { _, client in
            let answer = try await client.execute(uri: self.path(["pr:grid"]), method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok)
            let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
            XCTAssertEqual([image.width, image.height], [200, 200])
        }
        XCTAssertEqual(origin.requests.map(\.status), [200, 200], "the damaged copy was replaced by a download")
    }
}

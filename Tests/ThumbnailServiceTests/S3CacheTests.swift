import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import Logging
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// The result cache in a bucket (`--cache s3://bucket/prefix`) on a real S3 server on loopback
/// (`MotoServer`): shared by instances whatever key signs their URLs, a torn object never served,
/// and a store that is down, slow or refusing never failing a request. Faults the server cannot
/// produce come from `FaultyTransport`, around the real transport at the store's seam.
final class S3CacheTests: ServiceTestCase, @unchecked Sendable {
    private var moto: MotoServer!
    private static let otherKey = "6f746865722d6b6579", otherSalt = "6f746865722d73616c74"
    private var credentials: AWSCredentials { AWSCredentials(accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey) }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/DSCN0010.jpg", to: "sku-1/small.jpg")
        moto = try MotoServer(buckets: ["thumbs"])
    }

    override func tearDownWithError() throws {
        moto?.stop()
        try super.tearDownWithError()
    }

    private func bucketConfiguration(transport: FaultyTransport? = nil, endpoint: String? = nil, prefix: String = "out") -> ServiceConfiguration {
        var configuration = configuration()
        configuration.cacheFolder = "s3://thumbs/" + prefix
        configuration.s3Endpoint = endpoint ?? moto.endpoint
        configuration.s3Region = "us-east-1"
        configuration.s3Credentials = credentials
        if let transport { configuration.objectStoreTransport = transport }
        return configuration
    }

    private func small(_ width: Int, signer: ThumbnailURLSigner? = nil) -> String {
        (signer ?? self.signer).signedPath(options: ["w:\(width)"], source: "local:///sku-1/small.jpg", format: "jpg")
    }

    private static func renders(_ service: ThumbnailService) -> Int {
        let line = service.renderMetrics().split(separator: "\n").first { $0.hasPrefix("market_images_processing_seconds_count ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    private static func count(_ service: ThumbnailService, _ series: String) -> Int {
        let line = service.renderMetrics().split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    /// What one instance rendered, another serves from the bucket without rendering, though its
    /// URLs are signed with another key (the key is the ETag's, never the signature's); the object
    /// carries its content type, the service's ETag and its checksum.
    func testInstancesShareOutputsThroughTheBucketWhateverKeySigns() async throws {
        let log = LogLines()
        let first = try await render(small(100), configuration: bucketConfiguration(), log: log)
        XCTAssertEqual(first.renders, 1)
        XCTAssertTrue(log.all.contains { $0.contains("cache=miss") }, "\(log.all)")
        let stored = try moto.keys(in: "thumbs", prefix: "out")
        XCTAssertEqual(stored.count, 1, "\(stored)")
        let store = ObjectStore(endpoint: moto.endpoint, region: "us-east-1", pathStyle: true, credentials: credentials)
        let object = try await store.get(try XCTUnwrap(ObjectKey(bucket: "thumbs", key: stored[0])), maxBytes: 1 << 20, within: .seconds(5))
        XCTAssertEqual(object?.headers["content-type"], "image/jpeg")
        XCTAssertEqual(object?.headers["x-amz-meta-sha256"], SigV4Signer.hexSHA256(first.body))
        XCTAssertEqual(object?.headers["x-amz-meta-etag"].map { "\"\($0)\"" }, first.etag)

        // Another instance, its URLs signed with a rotated key: a remote hit, then a memory hit.
        var rotated = bucketConfiguration()
        rotated.keys = [SigningKey(key: Data(hex: Self.otherKey), salt: Data(hex: Self.otherSalt))]
        let otherSigner = try ThumbnailURLSigner(hexKey: Self.otherKey, hexSalt: Self.otherSalt)
        let otherLog = LogLines()
        try await withService(rotated, log: otherLog) { service, client in
            for _ in 0..<2 {
                let answer = try await client.execute(uri: self.small(100, signer: otherSigner), method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok)
                XCTAssertEqual(Data(buffer: answer.body), first.body)
                XCTAssertEqual(answer.headers[.eTag], first.etag)
            }
            XCTAssertEqual(Self.renders(service), 0, "served from the bucket without rendering")
            XCTAssertEqual(Self.count(service, "market_images_cache_total{outcome=\"remote-hit\"}"), 1)
            XCTAssertEqual(Self.count(service, "market_images_cache_total{outcome=\"hit\"}"), 1, "then from memory")
        }
        XCTAssertEqual(otherLog.all.filter { $0.contains("cache=remote-hit") }.count, 1, "\(otherLog.all)")
        XCTAssertFalse((log.all + otherLog.all).contains { $0.contains(self.moto.secretAccessKey) || $0.contains("Signature=") })
        // The start names the store and where in it outputs go, never the key.
        XCTAssertTrue(log.all.contains { $0.contains("s3://thumbs/out/") && $0.contains(self.moto.endpoint) }, "\(log.all)")
        XCTAssertFalse(log.all.contains { $0.contains(self.moto.accessKeyID) }, "\(log.all)")
    }

    /// A source read the store answers 503 SlowDown is tried again after a pause, as the AWS SDKs
    /// do, twice more at most: a store shedding load for a moment costs no request, one that keeps
    /// refusing is a 502 after three tries.
    func testASourceReadTheStoreAsksToRetryIsRetried() async throws {
        try moto.put(["a.jpg": try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/DSCN0010.jpg")))], bucket: "thumbs")
        let transport = FaultyTransport()
        var configuration = configuration()
        (configuration.useS3, configuration.allowedSources) = (true, ["s3://thumbs/"])
        (configuration.s3Endpoint, configuration.s3Region, configuration.s3Credentials) = (moto.endpoint, "us-east-1", credentials)
        configuration.objectStoreTransport = transport
        transport.fault.withLock { $0 = .slowDownFirst(2) }
        try await withService(configuration) { _, client in
            let path = { (width: Int) in self.signer.signedPath(options: ["w:\(width)"], source: "s3://thumbs/a.jpg", format: "jpg") }
            let status = try await client.execute(uri: path(100), method: .get) { $0.status }
            XCTAssertEqual(status, .ok)
            XCTAssertEqual(transport.requests, 3, "two 503s, then the object")
            transport.fault.withLock { $0 = .slowDownEvery(1) }
            let refused = try await client.execute(uri: path(101), method: .get) { $0.status }
            XCTAssertEqual(refused, .badGateway)
            XCTAssertEqual(transport.requests, 6, "three tries")
        }
    }

    /// An object whose body fails its checksum (torn on the way) is a miss: the image is rendered
    /// again, served whole, and the object replaced.
    func testATornObjectIsAMissNeverAnAnswer() async throws {
        let transport = FaultyTransport()
        var configuration = bucketConfiguration(transport: transport)
        configuration.memoryCache = 0
        let log = LogLines()
        try await withService(configuration, log: log) { service, client in
            let whole = try await client.execute(uri: self.small(100), method: .get) { Data(buffer: $0.body) }
            transport.fault.withLock { $0 = .tornReads }
            let again = try await client.execute(uri: self.small(100), method: .get) { $0 }
            XCTAssertEqual(again.status, .ok)
            XCTAssertEqual(Data(buffer: again.body), whole, "the torn object was served")
            XCTAssertEqual(Self.renders(service), 2)
            XCTAssertEqual(Self.count(service, "market_images_cache_store_total{operation=\"read\",outcome=\"torn\"}"), 1)
            transport.fault.withLock { $0 = nil }
            _ = try await client.execute(uri: self.small(100), method: .get) { $0.status }
            XCTAssertEqual(Self.renders(service), 2, "the replaced object is whole")
        }
        XCTAssertEqual(log.all.filter { $0.contains("cache=remote-hit") }.count, 1, "\(log.all)")
        // The object's fault, not the store's: a line naming it, and no outage.
        XCTAssertEqual(log.all.filter { $0.contains("/out/") && $0.contains("failed its check") }.count, 1, "\(log.all)")
        XCTAssertFalse(log.all.contains { $0.contains("the cache bucket failed") || $0.contains("the cache bucket answers again") }, "\(log.all)")
    }

    /// An object past the largest output the memory cache keeps is a miss, its body refused once past
    /// that limit (a read without a length cannot buffer a huge body): the output is rendered, the
    /// store's health untouched.
    func testAnObjectPastTheOutputLimitIsAMiss() async throws {
        let configuration = bucketConfiguration(prefix: "large")
        let first = try await render(small(100), configuration: configuration, log: LogLines())
        let key = try XCTUnwrap(try moto.keys(in: "thumbs", prefix: "large").first)
        // The object as the service writes one, for this output, but a byte past a tenth of the memory cache.
        let large = Data(repeating: 0xff, count: configuration.memoryCache / 10 + 1)
        let etag = try XCTUnwrap(first.etag).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let store = ObjectStore(endpoint: moto.endpoint, region: "us-east-1", pathStyle: true, credentials: credentials)
        try await store.put(try XCTUnwrap(ObjectKey(bucket: "thumbs", key: key)), body: large,
                            headers: [(name: "content-type", value: "image/jpeg"), (name: "x-amz-meta-sha256", value: SigV4Signer.hexSHA256(large)),
                                      (name: "x-amz-meta-etag", value: etag), (name: "x-amz-meta-format", value: "jpeg"),
                                      (name: "x-amz-meta-size", value: "100x75")], within: .seconds(30))
        let log = LogLines()
        try await withService(configuration, log: log) { service, client in
            let answer = try await client.execute(uri: self.small(100), method: .get) { $0 }
            XCTAssertEqual(Data(buffer: answer.body), first.body)
            XCTAssertEqual(Self.renders(service), 1)
            XCTAssertEqual(Self.count(service, "market_images_cache_store_total{operation=\"read\",outcome=\"miss\"}"), 1)
        }
        XCTAssertFalse(log.all.contains { $0.contains("the cache bucket failed") }, "\(log.all)")
    }

    /// The store down (nothing listening), stalled past its deadline, answering 500, or refusing a
    /// wrong key 403 (moto checks signatures): every request is answered as without a cache, the
    /// failures are counted, and each outage is one warning however many requests it meets; the
    /// store answering again ends it.
    func testAStoreThatFailsNeverFailsARequest() async throws {
        let closed = "http://127.0.0.1:\(try LoopbackClient.freePort())"
        let faults: [(String, FaultyTransport.Fault?, String?)] = [
            ("down", nil, closed), ("stalled", .stall, nil), ("500", .status(500), nil), ("403, a wrong key", nil, nil),
        ]
        for (name, fault, endpoint) in faults {
            let transport = FaultyTransport()
            transport.fault.withLock { $0 = fault }
            // A prefix of its own: no case finds what another stored.
            var configuration = bucketConfiguration(transport: transport, endpoint: endpoint, prefix: name)
            configuration.cacheTimeout = .milliseconds(500)
            configuration.storeProbeInterval = .zero
            configuration.memoryCache = 0
            let now = Locked(Date())
            configuration.clock = { now.current }
            if name.hasPrefix("403") { configuration.s3Credentials = AWSCredentials(accessKeyID: moto.accessKeyID, secretAccessKey: "wrong/secret") }
            let log = LogLines()
            let started = ContinuousClock.now
            try await withService(configuration, log: log) { service, client in
                for width in [100, 110, 120] {
                    let answer = try await client.execute(uri: self.small(width), method: .get) { $0 }
                    XCTAssertEqual(answer.status, .ok, name)
                    XCTAssertEqual(try ImageHeader.read(.data(Data(buffer: answer.body))).width, width, name)
                }
                XCTAssertGreaterThanOrEqual(Self.count(service, "market_images_cache_store_total{operation=\"read\",outcome=\"failed\"}"), 3, name)
                XCTAssertGreaterThanOrEqual(Self.count(service, "market_images_cache_store_total{operation=\"write\",outcome=\"failed\"}"), 3, name)
                XCTAssertEqual(log.all.filter { $0.contains("the cache bucket failed") }.count, 1, "\(name): \(log.all)")
                if name.hasPrefix("403") {
                    XCTAssertTrue(log.all.contains { $0.contains("check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") }, "a wrong secret is named too: \(log.all)")
                }
                guard fault != nil else { return }
                // The store is back: used at once, but the outage ends, once, only after a minute without a failure.
                transport.fault.withLock { $0 = nil }
                _ = try await client.execute(uri: self.small(140), method: .get) { $0.status }
                XCTAssertFalse(log.all.contains { $0.contains("the cache bucket answers again") }, "\(name): \(log.all)")
                now.withLock { $0 += StoreHealth.settleTime }
                for width in [150, 160] { _ = try await client.execute(uri: self.small(width), method: .get) { $0.status } }
                XCTAssertEqual(log.all.filter { $0.contains("the cache bucket answers again") }.count, 1, "\(name): \(log.all)")
                XCTAssertEqual(Self.count(service, "market_images_cache_store_total{operation=\"write\",outcome=\"stored\"}"), 3, name)
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(20), "\(name): each store operation is bounded by --cache-timeout")
            XCTAssertFalse(log.all.contains { $0.contains(self.moto.secretAccessKey) || $0.contains("wrong/secret") || $0.contains("Signature=") }, name)
        }
    }

    /// A store answering 503 SlowDown to one request in ten, requests 5 s apart by the test's clock
    /// for over three minutes: one outage, one warning, and a minute after its last failure one
    /// notice with the count; not a warning and a notice per failure.
    func testAFlakyStoreIsOneWarningAndOneNotice() async throws {
        let transport = FaultyTransport()
        transport.fault.withLock { $0 = .slowDownEvery(10) }
        var configuration = bucketConfiguration(transport: transport, prefix: "flaky")
        configuration.memoryCache = 0
        configuration.storeProbeInterval = .zero
        let now = Locked(Date())
        configuration.clock = { now.current }
        let log = LogLines()
        try await withService(configuration, log: log) { service, client in
            for width in 100..<140 {
                let status = try await client.execute(uri: self.small(width), method: .get) { $0.status }
                XCTAssertEqual(status, .ok)
                now.withLock { $0 += 5 }
            }
            XCTAssertEqual(Self.count(service, "market_images_cache_store_total{operation=\"write\",outcome=\"failed\"}"), 8)
            XCTAssertFalse(log.all.contains { $0.contains("the cache bucket answers again") }, "\(log.all)")
            transport.fault.withLock { $0 = nil }
            now.withLock { $0 += StoreHealth.settleTime }
            _ = try await client.execute(uri: self.small(200), method: .get) { $0.status }
        }
        XCTAssertEqual(log.all.filter { $0.contains("the cache bucket failed") }.count, 1, "\(log.all)")
        let notices = log.all.filter { $0.contains("the cache bucket answers again") }
        XCTAssertEqual(notices.count, 1, "\(log.all)")
        XCTAssertTrue(notices.first?.contains("(8 operations failed over 175 s)") == true, "\(notices)")
    }

    /// Three instances on one bucket under concurrent load over M distinct URLs (each asked three
    /// times, by whichever instance a worker talks to): each instance renders an output at most once
    /// (single flight, then memory), so the fleet renders between M (no two instances missed one
    /// output at once) and 3M; the test prints where it landed. An instance started afterwards
    /// serves all M from the bucket without rendering any.
    func testAFleetRendersEachOutputOnceAndALateInstanceNone() async throws {
        let widths = Array(stride(from: 100, through: 155, by: 5))
        var generator = SeededGenerator(seed: 47)
        let order = (widths + widths + widths).shuffled(using: &generator)
        let configuration = bucketConfiguration()
        let totals = Locked(0)
        try await withServices(3, configuration) { instances in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, (_, client)) in instances.enumerated() {
                    let mine = order.enumerated().filter { $0.offset % instances.count == index }.map(\.element)
                    group.addTask {
                        for width in mine {
                            let status = try await client.execute(uri: self.small(width), method: .get) { $0.status }
                            XCTAssertEqual(status, .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let renders = instances.map { Self.renders($0.service) }
            XCTAssertTrue(renders.allSatisfy { $0 <= widths.count }, "\(renders)")
            totals.withLock { $0 = renders.reduce(0, +) }
        }
        let total = totals.current
        XCTAssertGreaterThanOrEqual(total, widths.count)
        XCTAssertLessThanOrEqual(total, 3 * widths.count)
        print("fleet of 3 on one bucket: \(total) renders for \(widths.count) distinct URLs, \(order.count) requests")
        try await withService(configuration) { late, client in
            for width in widths {
                let status = try await client.execute(uri: self.small(width), method: .get) { $0.status }
                XCTAssertEqual(status, .ok)
            }
            XCTAssertEqual(Self.renders(late), 0, "a late instance serves the fleet's outputs from the bucket")
            XCTAssertEqual(Self.count(late, "market_images_cache_total{outcome=\"remote-hit\"}"), widths.count)
        }
    }

    /// `count` services on routers of their own, each with its client, alive during `body`.
    private func withServices(_ count: Int, _ configuration: ServiceConfiguration, running: [(service: ThumbnailService, client: any TestClientProtocol)] = [],
                              _ body: @escaping @Sendable ([(service: ThumbnailService, client: any TestClientProtocol)]) async throws -> Void) async throws {
        guard running.count < count else { return try await body(running) }
        try await withService(configuration) { service, client in
            try await self.withServices(count, configuration, running: running + [(service, client)], body)
        }
    }

    /// One request on a service of its own: the body, its ETag and how many renders it took.
    private func render(_ path: String, configuration: ServiceConfiguration, log: LogLines) async throws -> (body: Data, etag: String?, renders: Int) {
        let result = Locked<(Data, String?, Int)>((Data(), nil, 0))
        try await withService(configuration, log: log) { service, client in
            let answer = try await client.execute(uri: path, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok)
            result.withLock { $0 = (Data(buffer: answer.body), answer.headers[.eTag], Self.renders(service)) }
        }
        return result.current
    }
}

/// Faults no S3 server produces on demand, at the transport seam around the real transport: a
/// body torn on the way (its headers intact), a stall until the deadline, a status of the test's.
final class FaultyTransport: ObjectStoreTransport {
    enum Fault: Sendable {
        case tornReads, stall, status(Int)
        /// Every nth request answered 503 SlowDown, as a store shedding load answers.
        case slowDownEvery(Int)
        /// The first n requests answered 503 SlowDown, then the store's own answers.
        case slowDownFirst(Int)
    }

    let fault = Locked<Fault?>(nil)
    private let sent = Locked(0)
    private let real = HTTPObjectStoreTransport()
    private static let slowDown = ObjectStoreResponse(status: 503, headers: [:], body: Data("<Error><Code>SlowDown</Code></Error>".utf8))

    /// Requests sent so far, this one included.
    var requests: Int { sent.current }

    private func count() -> Int {
        sent.withLock { sent in
            sent += 1
            return sent
        }
    }

    func send(_ request: ObjectStoreRequest, maxBytes: Int) async throws(ObjectStoreError) -> ObjectStoreResponse {
        switch fault.current {
        case .tornReads?:
            var response = try await real.send(request, maxBytes: maxBytes)
            if request.method == "GET", response.status == 200 { response.body = response.body.prefix(response.body.count / 2) }
            return response
        case .stall?:
            // Waits for the store's deadline to cancel it.
            try? await Task.sleep(for: .seconds(3600))
            throw .unreachable
        case .status(let status)?:
            return ObjectStoreResponse(status: status, headers: [:], body: Data("<Error><Code>Injected\(status)</Code></Error>".utf8))
        case .slowDownEvery(let n)?:
            guard count() % n == 0 else { return try await real.send(request, maxBytes: maxBytes) }
            return Self.slowDown
        case .slowDownFirst(let n)?:
            guard count() <= n else { return try await real.send(request, maxBytes: maxBytes) }
            return Self.slowDown
        case nil:
            return try await real.send(request, maxBytes: maxBytes)
        }
    }
}

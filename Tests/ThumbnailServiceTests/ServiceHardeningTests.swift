import FlyingFox
import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService
@testable import ImagePipeline

/// The holes a second attack on `serve` found, each against the service started as a user starts
/// it: a way out of `--root` through libvips' filename options, outputs the URL left unbounded,
/// source prefixes escaped with dot segments, a cold burst on one large source, connections held
/// open by the thousand, and the smaller leaks (a loader outside the photo formats, a signature in
/// the log, HTTP/1.0 connections, `Accept` with spaces, a file replaced in place).
final class ServiceHardeningTests: FolderTestCase {
    private func start(_ arguments: [String] = []) async throws -> LiveService {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        return try await startService(["--root", input, "--insecure-unsigned"] + arguments, environment: ["MARKET_IMAGES_KEY": ""])
    }

    private func path(_ source: String, _ options: [String], format: String? = nil) -> String {
        "/insecure" + ThumbnailURLSigner.path(options: options, source: source, format: format)
    }

    /// libvips reads `name[options]` as a file plus loader options. With `evil.png[]` a regular file
    /// inside the root and `evil.png` a link to a photo outside it, asking for `evil.png[]` once gave
    /// the outside photo. Now the file is opened by the service and libvips sees bytes: the name is
    /// the file's own, and options in a name are just characters.
    func testLoaderOptionsInANameNeitherLeaveTheRootNorLiftLimits() async throws {
        try copy("metadata/everything.png", to: "evil.png[]")
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        try FileManager.default.copyItem(atPath: Fixture.path("photos/DSCN0010.jpg"), toPath: root + "/outside.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/evil.png", withDestinationPath: root + "/outside.jpg")
        let service = try await start()

        let decoy = try await service.get(path("local:///evil.png[]", [], format: "png"))
        XCTAssertEqual(decoy.status, 200)
        let inside = try ImageHeader.read(file: Fixture.path("metadata/everything.png"))
        XCTAssertEqual(try ImageHeader.read(.data(decoy.body)).width, inside.width, "the file named evil.png[] itself, not the link's target")
        let link = try await service.get(path("local:///evil.png", [], format: "png"))
        XCTAssertEqual(link.status, 404, "a link leading out of the root")
        for suffix in ["[fail_on=none]", "[unlimited=true]", "[0]", "[]"] {
            let answer = try await service.get(path("local:///sku-1/IMG_1.jpg" + suffix, ["w:100"]))
            XCTAssertEqual(answer.status, 404, "\(suffix) is part of a name no file has")
        }
    }

    /// `prepare` reads a file literally named `photo.png[1]` as itself, beside a `photo.png` that
    /// libvips would have opened instead.
    func testPrepareReadsANameWithBracketsAsItself() throws {
        try copy("metadata/everything.png", to: "photo.png[1]")
        try copy("photos/jolla.jpg", to: "photo.png")
        let report = try FolderProcessor(job: FolderJob(inputs: [input + "/photo.png[1]"], outputFolder: output, prepare: PrepareOptions(), thumbnails: nil)).run { _ in }
        XCTAssertEqual(report.failed.count, 0)
        let written = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
        let inside = try ImageHeader.read(file: Fixture.path("metadata/everything.png"))
        let made = try ImageHeader.read(file: output + "/" + XCTUnwrap(written.first, "\(written)"))
        XCTAssertEqual([made.width, made.height], [inside.width, inside.height])
    }

    /// No output is larger than `--max-output-edge`, whatever the URL says or leaves out, and an
    /// unsized URL on a 16000×16000 PNG decodes straight into that box.
    func testEveryOutputFitsTheEdgeLimit() async throws {
        try copy("crafted/png-bomb-16000.png", to: "big.png")
        try copy("crafted/strip-1x20000.png", to: "strip.png")
        let service = try await start(["--max-output-edge", "1024", "--workers", "1"])
        let cases: [(String, [String], String?)] = [
            ("big.png", ["q:81"], "jpg"), ("big.png", [], "png"), ("big.png", ["rs:fit:0:2000"], "webp"),
            ("strip.png", [], "jpg"), ("strip.png", ["rs:force:300:0"], "jpg"), ("strip.png", ["w:800", "dpr:1"], "png"),
        ]
        for (name, options, format) in cases {
            let answer = try await service.get(path("local:///" + name, options, format: format))
            XCTAssertEqual(answer.status, 200, "\(name) \(options): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            let header = try ImageHeader.read(.data(answer.body))
            XCTAssertLessThanOrEqual(max(header.width, header.height), 1024, "\(name) \(options)")
        }
        let big = try ImageHeader.read(.data(try await service.get(path("local:///big.png", [], format: "jpg")).body))
        XCTAssertEqual([big.width, big.height], [1024, 1024], "fitted into the limit, not refused")
        // The README's figure for one request on a pixel bomb under --max-pixels.
        XCTAssertLessThan(service.memory.peak, 140, "peak RSS \(service.memory.peak) MB")
    }

    /// A path-scoped `--allow-source` prefix cannot be walked out of with dot segments in any
    /// spelling, directly or by redirect, and the origin is never asked for the outside path.
    func testSourcePrefixesCannotBeLeftWithDotSegments() async throws {
        let origin = try await Origin.start { path in
            switch path {
            case "/images/a.jpg", "/private/secret.jpg": FlyingFox.HTTPResponse(statusCode: .ok, body: try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/DSCN0010.jpg"))))
            case "/images/hop.jpg": FlyingFox.HTTPResponse(statusCode: .found, headers: FlyingFox.HTTPHeaders([.location: "/images/../private/secret.jpg"]))
            case "/images/hop-encoded.jpg": FlyingFox.HTTPResponse(statusCode: .found, headers: FlyingFox.HTTPHeaders([.location: "/images/%2e%2e/private/secret.jpg"]))
            default: FlyingFox.HTTPResponse(statusCode: .notFound)
            }
        }
        let base = "http://127.0.0.1:\(origin.port)"
        let service = try await start(["--allow-source", base + "/images/", "--allow-private-sources"])
        for escape in ["/images/../private/secret.jpg", "/images/%2e%2e/private/secret.jpg", "/images/..%2fprivate/secret.jpg",
                       "/images/.%2e/private/secret.jpg", "/images/%2E%2E/private/secret.jpg", "/images/..%2Fprivate/secret.jpg",
                       "/images/..\\private/secret.jpg", "/images/%5c../private/secret.jpg", "/images/hop.jpg", "/images/hop-encoded.jpg",
                       "/images", "/imagesX/a.jpg"] {
            let answer = try await service.get(path(base + escape, ["w:100"]))
            XCTAssertEqual(answer.status, 404, escape)
        }
        let normalised = try await service.get(path(base + "/images/./sub/../a.jpg", ["w:100"]))
        XCTAssertEqual(normalised.status, 200)
        let asked = await origin.requested
        XCTAssertFalse(asked.contains { $0.contains("private") || $0.contains("%2") || $0.contains("..") }, "\(asked)")
        XCTAssertEqual(asked.filter { $0 == "/images/a.jpg" }.count, 1, "the normalised URL, exactly: \(asked)")
    }

    /// Every spelling of one origin URL (percent-encoded unreserved characters, lower-case hex, dot
    /// segments) is one source: one download, one render, one ETag. Twenty spellings were twenty.
    func testEverySpellingOfARemoteSourceIsOneOutput() async throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/DSCN0010.jpg")))
        let origin = try await Origin.start { path in
            path == "/m/photo.jpg" ? FlyingFox.HTTPResponse(statusCode: .ok, body: photo) : FlyingFox.HTTPResponse(statusCode: .notFound)
        }
        let base = "http://127.0.0.1:\(origin.port)"
        let service = try await start(["--allow-source", base + "/m/", "--allow-private-sources", "--cache", output + "/cache"])
        var tags: Set<String> = []
        for spelling in ["/m/photo.jpg", "/m/%70hoto.jpg", "/%6D/photo.jpg", "/%6d/photo.jpg", "/m/photo%2ejpg", "/m/photo%2Ejpg",
                         "/m/%70%68%6F%74%6F%2E%6A%70%67", "/m/./photo.jpg", "/m/x/../photo.jpg", "/m/%2e/photo.jpg", "/m/ph%6Fto.jpg"] {
            let answer = try await service.get(path(base + spelling, ["w:100"]))
            XCTAssertEqual(answer.status, 200, spelling)
            tags.insert(answer.header("etag") ?? "")
        }
        XCTAssertEqual(tags.count, 1, "one ETag: \(tags)")
        let asked = await origin.requested
        XCTAssertEqual(asked, ["/m/photo.jpg"], "one download of the normalised URL")
        let metrics = try await service.metrics()
        XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="miss"} 1"#), "one render")
        XCTAssertEqual(SourceURL("HTTP://Example.COM:80/%7euser/a%c3%a9?q=%7e%2f")?.text, "http://example.com/~user/a%C3%A9?q=~%2F")
    }

    /// 60 concurrent requests in 4 sizes for one cold 16 MB source: one download at the origin, every
    /// answer 200, and memory held to one copy of the source, not sixty.
    func testAColdBurstOnOneLargeSourceDownloadsItOnce() async throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/2569067123_aca715a2ee_o.jpg")))
        let padded = photo + Data(count: 16_000_000 - photo.count)    // bytes after the JPEG's end are ignored
        let gate = Gate()
        let origin = try await Origin.start { _ in
            await gate.wait()
            return FlyingFox.HTTPResponse(statusCode: .ok, body: padded)
        }
        let service = try await start(["--allow-source", "http://127.0.0.1:\(origin.port)/", "--allow-private-sources", "--queue", "100"])
        let before = service.memory.resident
        let paths = (0..<60).map { path("http://127.0.0.1:\(origin.port)/big.jpg", ["w:\(100 + $0 % 4 * 100)"]) }
        let statuses = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for path in paths { group.addTask { try await service.get(path, timeout: 60).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // The origin answers once all 60 are inside the service, waiting on the one download (and
        // whatever happens, so a failure cannot leave the requests hanging).
        let arrived = await service.waitUntilInFlight(atLeast: 60)
        await gate.open()
        XCTAssertTrue(arrived, "all 60 requests reached the service")
        let answered = try await statuses.value
        XCTAssertEqual(answered, Array(repeating: 200, count: 60))
        let asked = await origin.requested
        XCTAssertEqual(asked, ["/big.jpg"], "one download for every request and size")
        XCTAssertLessThan(service.memory.peak - before, 150, "RSS \(before) → peak \(service.memory.peak) MB")
    }

    /// At a cap of 512 connections (half of `ulimit -n 1024`), 1,100 connections that never finish their request head cannot keep a
    /// real client out: at the cap the idle ones are closed for newcomers, `/health` answers within
    /// a second, and the service does not spin.
    func testHalfOpenConnectionsCannotShutOutRealClients() async throws {
        let service = try await start(["--max-connections", "512"])
        let port = try XCTUnwrap(service.base.port)
        var held: [RawConnection] = []
        for _ in 0..<1100 {
            guard let connection = try? RawConnection(port: port) else { break }
            connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")
            held.append(connection)
        }
        XCTAssertEqual(held.count, 1100, "the listener kept accepting")
        let cpuBefore = service.cpuSeconds
        let started = Date()
        let health = try await service.get("/health", timeout: 5)
        XCTAssertEqual(health.status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        @Sendable func gauge(_ name: String, in metrics: String) -> Double? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        // The last connections may still sit in the listen backlog when /health answers: the sheds
        // are counted as they are accepted.
        try await waitUntil("1,100 connections accepted, 588 of them shed") {
            (try? await service.metrics()).flatMap { gauge("market_images_connections_shed_total", in: $0) }.map { $0 >= 588 } ?? false
        }
        let metrics = try await service.metrics()
        XCTAssertLessThanOrEqual(try XCTUnwrap(gauge("market_images_connections", in: metrics)), 512, "the cap:\n\(metrics)")
        let idle = try await service.get("/health", timeout: 5)
        XCTAssertEqual(idle.status, 200)
        XCTAssertLessThan(service.cpuSeconds - cpuBefore, 1, "no busy loop while at the cap")
        withExtendedLifetime(held) {}
    }

    /// Under `ulimit -n 1024` (a unit's `LimitNOFILE`), a cap above what the descriptors allow is
    /// refused at start with what to change, and without a cap the service holds half the limit.
    func testAMaxConnectionsAboveTheOpenFileLimitIsRefusedAtStart() throws {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = 1024
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        defer { var saved = saved; setrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved) }
        let refused = LiveService.refusal(["--root", input, "--insecure-unsigned", "--max-connections", "5000"], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
        XCTAssertTrue(refused.contains("--max-connections: must be 1 to 960") && refused.contains("LimitNOFILE"), refused)
        XCTAssertEqual(ServiceConfiguration().connectionLimit, 512, "half the open-file limit")
    }

    /// The smaller holes: a loader outside the photo formats, a signature after `//` in the log, an
    /// HTTP/1.0 connection held open, `Accept` with spaces, a file replaced with the same size and
    /// modification time.
    func testTheSmallerHolesAreClosed() async throws {
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        try Data("2 2\n1 2\n3 4\n".utf8).write(to: URL(fileURLWithPath: input + "/matrix.mat"))
        let service = try await start()
        let port = try XCTUnwrap(service.base.port)

        let matrix = try await service.get(path("local:///matrix.mat", ["w:10"]))
        XCTAssertEqual(matrix.status, 415, "libvips' matrix loader is not a photo format")

        let signature = String(repeating: "Q", count: 43)
        _ = try await service.get("//" + signature + "/w:10/plain/local:///sku-1/IMG_1.jpg")
        XCTAssertFalse(service.logText.contains(signature), "a signature after // is elided too")

        let old = try RawConnection(port: port)
        old.send("GET /health HTTP/1.0\r\n\r\n")
        XCTAssertTrue(old.isClosed(within: 2), "HTTP/1.0 without keep-alive is closed after its answer")

        let list = path("local:///sku-1/IMG_1.jpg", ["pr:list"])
        let refused = try await service.get(list, headers: ["Accept": "image/webp ; q = 0, image/jpeg"])
        XCTAssertEqual(refused.header("Content-Type"), "image/jpeg")

        let first = try await service.get(list, headers: ["Accept": "image/jpeg"])
        let etag = try XCTUnwrap(first.header("ETag"))
        try FileStatusClock.replaceKeepingSizeAndTime(input + "/sku-1/IMG_1.jpg", with: Fixture.path("photos/jolla.jpg")) { bytes in
            bytes[bytes.count - 3] ^= 0xFF    // one byte of the last scan: the same size, other pixels
        }
        let after = try await service.get(list, headers: ["Accept": "image/jpeg", "If-None-Match": etag])
        XCTAssertNotEqual(after.status, 304, "a file replaced in place is a new image")
        XCTAssertNotEqual(after.header("ETag"), etag)
    }
}

/// Rewrites a file in place with changed bytes of the same length, then puts its modification time
/// back to the nanosecond, as `cp -p` or `touch -r` would.
enum FileStatusClock {
    static func replaceKeepingSizeAndTime(_ path: String, with source: String, change: (inout Data) -> Void) throws {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        change(&bytes)
        XCTAssertEqual(bytes.count, Int(info.st_size))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: bytes)
        try handle.close()
        let times = [info.st_atim, info.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, times, 0), 0)
    }
}

/// An origin on loopback that records the path of every request it is sent.
final class Origin: Sendable {
    private let server: HTTPServer
    private let log: RequestLog
    let port: Int

    private init(server: HTTPServer, log: RequestLog, port: Int) {
        (self.server, self.log, self.port) = (server, log, port)
    }

    var requested: [String] { get async { await log.paths } }

    static func start(_ answer: @escaping @Sendable (String) async throws -> FlyingFox.HTTPResponse) async throws -> Origin {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        let log = RequestLog()
        await server.appendRoute("*") { request in
            await log.append(request.path)
            return try await answer(request.path)
        }
        Task { try? await server.run() }
        try await server.waitUntilListening(timeout: 10)
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        return Origin(server: server, log: log, port: Int(port))
    }

    deinit {
        let server = self.server
        Task { await server.stop() }
    }
}

actor RequestLog {
    private(set) var paths: [String] = []
    func append(_ path: String) { paths.append(path) }
}

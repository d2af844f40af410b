import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService
@testable import ImagePipeline

/// `serve` against what the internet sends it: garbage URLs, slow and vanishing clients, hostile
/// files, a cache that fails, and SIGTERM while busy. Each case is bounded in time and count, on
/// loopback, against the service started as a user starts it.
final class ServiceUnderAttackTests: FolderTestCase {
    private static let key = "61747461636b2d74657374", salt = "73616c74"
    private let signer = try! ThumbnailURLSigner(hexKey: ServiceUnderAttackTests.key, hexSalt: ServiceUnderAttackTests.salt)

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        try copy("photos/DSCN0010.jpg", to: "sku-1/IMG_2.jpg")
    }

    private func start(_ arguments: [String] = [], unsigned: Bool = false) async throws -> LiveService {
        try await startService(["--root", input] + arguments + (unsigned ? ["--insecure-unsigned"] : []),
                         environment: unsigned ? ["MARKET_IMAGES_KEY": ""] : ["MARKET_IMAGES_KEY": Self.key, "MARKET_IMAGES_SALT": Self.salt],
                         secrets: [Self.key, Self.salt])
    }

    private func path(_ source: String, _ options: [String], format: String? = nil) -> String {
        signer.signedPath(options: options, source: "local:///" + source, format: format)
    }

    /// One request on its own connection, as raw bytes: the status, or nil when the server hung up
    /// without answering (what an HTTP parser does with a request line it cannot read).
    private func rawStatus(_ target: String, port: Int) throws -> Int? {
        let connection = try RawConnection(port: port)
        connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        guard let head = connection.receive(limit: 64, timeout: 10), head.count >= 12 else { return nil }
        return Int(String(decoding: head[9..<12], as: UTF8.self))
    }

    /// 2,000 seeded garbage paths reach the parser (no key, so every signature passes) and another
    /// 300 carry signatures of every wrong length: each answer is a 4xx, nothing crashes, memory stays
    /// flat, and a good request is still served.
    func testGarbageURLsGetOnlyClientErrors() async throws {
        let service = try await start(unsigned: true)
        let port = try XCTUnwrap(service.base.port)
        _ = try rawStatus("/insecure/w:100/plain/local:///sku-1/IMG_1.jpg", port: port)
        let before = service.memory.resident
        var statuses: [Int: Int] = [:], unanswered = 0
        for garbage in MalformedPaths.generate(count: 2000, seed: 0x5EED) {
            // Bytes a request line cannot carry are percent-encoded; `%` itself is left alone.
            let target = "/insecure" + garbage.utf8.map { byte in
                (0x21...0x7e).contains(byte) && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "?") ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }.joined()
            if let status = try rawStatus(target, port: port) { statuses[status, default: 0] += 1 } else { unanswered += 1 }
        }
        XCTAssertTrue(statuses.keys.allSatisfy { (400..<500).contains($0) || $0 == 200 }, "only 4xx (and a few valid paths): \(statuses)")
        XCTAssertGreaterThan(statuses.filter { (400..<500).contains($0.key) }.values.reduce(0, +), 1500, "\(statuses), \(unanswered) unanswered")
        XCTAssertTrue(service.isRunning)
        XCTAssertLessThan(service.memory.resident - before, 40, "memory stays flat: \(before) → \(service.memory.resident) MB")

        let keyed = try await start()
        let good = path("sku-1/IMG_1.jpg", ["w:100"])
        let rest = good.dropFirst().drop { $0 != "/" }
        for length in 0..<300 {
            let signature = String(repeating: "A", count: length % 100) + (length >= 100 ? "=" : "") + (length >= 200 ? "%00" : "")
            let status = try rawStatus("/" + signature + rest, port: try XCTUnwrap(keyed.base.port))
            XCTAssertTrue(status == nil || status == 403 || status == 404, "signature of length \(length): \(String(describing: status))")
        }
        let served = try await keyed.get(good)
        XCTAssertEqual(served.status, 200, "and everyone else is still served")
    }

    /// Every request gets one access-log line and one count, whatever it is: 200 pipelined
    /// `PROPFIND`s and other methods no route has (once answered, never logged: `requests_total 0`),
    /// and requests the HTTP parser refuses.
    func testEveryRequestIsLoggedAndCounted() async throws {
        let service = try await start(unsigned: true)
        let port = try XCTUnwrap(service.base.port)
        let pipelined = try RawConnection(port: port)
        let methods = ["PROPFIND", "TRACE", "MKCOL", "LOCK"]
        let requests = (0..<200).map { "\(methods[$0 % methods.count]) /x\($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined()
        XCTAssertTrue(pipelined.send(requests + "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        XCTAssertTrue(pipelined.isClosed(within: 20), "every answer sent, then the connection closed")
        for garbage in ["GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "\u{1}\u{2} nonsense\r\n\r\n",
                        "GET / HTTP/1.1\r\nBad Header\r\n\r\n"] {
            let connection = try RawConnection(port: port)
            connection.send(garbage)
            let head = connection.receive(limit: 64, timeout: 10) ?? Data()
            XCTAssertTrue(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 400"), garbage.debugDescription)
        }
        let metrics = try await service.metrics()
        for method in methods {
            XCTAssertEqual(service.logLines(containing: "\(method) /").count, 50, method)
        }
        XCTAssertEqual(service.logLines(containing: "refused=").count, 3, service.logText)
        let counted = metrics.split(separator: "\n").filter { $0.hasPrefix("market_images_requests_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        XCTAssertEqual(counted, 204, "every request counted: \(metrics)")
    }

    /// 200 clients sending their request a byte every 200 ms hold connections, not the service:
    /// others are answered as fast as before, and the slow ones, like a connection that says nothing,
    /// are closed at --idle-timeout.
    func testSlowClientsDoNotSlowOthersAndAreCutOff() async throws {
        let service = try await start(["--idle-timeout", "3"])
        let port = try XCTUnwrap(service.base.port)
        let good = path("sku-1/IMG_1.jpg", ["w:100"])
        _ = try await service.get(good)
        func latency() async throws -> Double {
            let started = Date()
            let answer = try await service.get(good, timeout: 10)
            XCTAssertEqual(answer.status, 200)
            return Date().timeIntervalSince(started)
        }
        var quiet: [Double] = []
        for _ in 0..<10 { quiet.append(try await latency()) }

        let slow = try (0..<200).map { _ in try RawConnection(port: port) }
        let request = "GET \(good) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        let sending = Gate()
        let sender = Task.detached {
            for character in request.prefix(40) {
                for connection in slow { connection.send(String(character)) }
                await sending.open()
                try await Task.sleep(nanoseconds: 200_000_000)    // the slow client's pace: the attack itself
            }
        }
        await sending.wait()
        var busy: [Double] = []
        for _ in 0..<10 { busy.append(try await latency()) }
        XCTAssertLessThan(busy.max()!, max(quiet.max()! * 5, 0.5), "others are served in their normal time: quiet \(quiet), busy \(busy)")
        let closed = slow.filter { $0.isClosed(within: 5) }.count
        sender.cancel()
        XCTAssertEqual(closed, 200, "every slow sender is cut off at the idle timeout")

        let silent = try RawConnection(port: port)
        XCTAssertTrue(silent.isClosed(within: 4), "an idle connection is closed")
    }

    /// A request whose announced body trickles in a byte every 200 ms is closed at --idle-timeout
    /// from its head, as a silent connection is; a whole request on another connection is answered.
    func testATrickledBodyIsCutOffAtTheIdleTimeout() async throws {
        let service = try await start(["--idle-timeout", "0.5"])
        let port = try XCTUnwrap(service.base.port)
        let connection = try RawConnection(port: port)
        let started = Date()
        connection.send("GET \(path("sku-1/IMG_1.jpg", ["w:100"])) HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        let sender = Task.detached {
            for _ in 0..<100 {
                guard connection.send("a") else { return }
                try await Task.sleep(nanoseconds: 200_000_000)    // the trickle's pace: the attack itself
            }
        }
        XCTAssertTrue(connection.isClosed(within: 6), "the trickled request is cut off")
        sender.cancel()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "at the idle timeout, not when the body would end (20 s)")
        let answer = try await service.get(path("sku-1/IMG_1.jpg", ["w:100"]))
        XCTAssertEqual(answer.status, 200)
    }

    /// Signed URLs that asked for canvases far past the output's limit: padding of 8192 px around a
    /// fit (a 20480² canvas, 1.3 GB, before) and a 1×40 sliver filling 4096² with a corner gravity
    /// (a 4096×163840 cover, 2 GB, before). Each answers within the limit and the service's peak
    /// memory stays far below what those canvases were.
    func testCanvasesPastTheOutputLimitAreNeverBuilt() async throws {
        try GeneratedImage.noise(width: 1, height: 40, to: input + "/sku-1/sliver.png")
        let service = try await start()
        let padded = try await service.get(path("sku-1/IMG_1.jpg", ["rs:fit:512:512", "dpr:8", "pd:1024", "el:1"]), timeout: 60)
        XCTAssertEqual(padded.status, 200)
        let canvas = try ImageHeader.read(.data(padded.body))
        XCTAssertEqual(Double(max(canvas.width, canvas.height)), 4096, accuracy: 2, "the canvas is the output's limit")
        let filled = try await service.get(path("sku-1/sliver.png", ["rs:fill:4096:4096", "el:1", "g:no"], format: "jpg"), timeout: 60)
        XCTAssertEqual(filled.status, 200)
        let square = try ImageHeader.read(.data(filled.body))
        XCTAssertEqual(Double(square.width), 4096, accuracy: 2)
        XCTAssertEqual(Double(square.height), 4096, accuracy: 2)
        XCTAssertLessThan(service.memory.peak, 440, "MB at peak: \(service.memory)")
    }

    /// Clients that hang up mid-answer: the service notices nothing worse than a closed socket.
    func testClientsThatDisconnectMidResponseHarmNoOne() async throws {
        let service = try await start()
        let port = try XCTUnwrap(service.base.port)
        for index in 0..<8 {
            let connection = try RawConnection(port: port)
            connection.send("GET \(path("sku-1/IMG_1.jpg", ["rs:fit:\(2000 + index):\(2000 + index)", "q:95"], format: "png")) HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = connection.receive(limit: 512, timeout: 10)
        }
        let answer = try await service.get(path("sku-1/IMG_2.jpg", ["w:100"]))
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(service.isRunning)
    }

    /// A client that leaves while its render runs (closing the connection, as nginx does upstream when
    /// its own client leaves) takes the render with it: stopped mid-run, the worker free for the next
    /// request, and 499 in the access log.
    func testARenderWhoseClientLeftIsStopped() async throws {
        try GeneratedImage.noise(width: 2000, height: 2000, to: input + "/sku-1/noise.png")
        let service = try await start(["--workers", "1"])
        let port = try XCTUnwrap(service.base.port)
        let slow = path("sku-1/noise.png", ["rs:fit:3500:3500", "el:1"], format: "png")
        do {
            let connection = try RawConnection(port: port)
            connection.send("GET \(slow) HTTP/1.1\r\nHost: x\r\n\r\n")
            let running = await service.waitUntilMetric("market_images_renders_running", atLeast: 1)
            XCTAssertTrue(running, "the render started")
        }
        let stopped = await service.waitUntilMetric(#"market_images_renders_stopped_total{reason="client-gone"}"#, atLeast: 1)
        let metrics = try await service.metrics()
        XCTAssertTrue(stopped, "the render was stopped: \(metrics)")
        let next = try await service.get(path("sku-1/IMG_2.jpg", ["w:100"]))
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(service.logLines(containing: " 499 ").count, 1, service.logText)
    }

    /// The corpus's hostile files as sources: each answered with the status of its error, fast, and
    /// memory bounded.
    func testHostileFilesAreRefusedFastWithTheirStatus() async throws {
        let hostile = ["hostile/giant-image.jpg": 413, "hostile/65536-uint32-limit.png": 413, "hostile/corrupt-header.jpg": 422,
                       "hostile/corrupted.jpg": 422, "hostile/empty.jpg": 422, "hostile/not-an-image.jpg": 415,
                       "crafted/png-bomb-20000.png": 413, "crafted/zero-size.png": 422, "crafted/exif-loop.jpg": 200]
        for fixture in hostile.keys { try copy(fixture, to: "bad/" + (fixture as NSString).lastPathComponent) }
        let service = try await start()
        for (fixture, expected) in hostile.sorted(by: { $0.key < $1.key }) {
            let started = Date()
            let answer = try await service.get(path("bad/" + (fixture as NSString).lastPathComponent, ["w:200"], format: "jpg"))
            XCTAssertEqual(answer.status, expected, "\(fixture): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, fixture)
        }
        XCTAssertLessThan(service.memory.peak, 340, "peak memory")
        let answer = try await service.get(path("sku-1/IMG_1.jpg", ["w:100"]))
        XCTAssertEqual(answer.status, 200)
    }

    /// A cache that cannot be written, read-only or full: every image is still served, with one warning.
    func testAReadOnlyCacheIsOneWarningAndNoErrors() async throws {
        try await serveEverythingWithOneWarning(cache: try mountedFolder(size: "1m", readOnly: true))
    }

    func testAFullCacheIsOneWarningAndNoErrors() async throws {
        try await serveEverythingWithOneWarning(cache: try mountedFolder(size: "16k"))
    }

    private func serveEverythingWithOneWarning(cache: String) async throws {
        let service = try await start(["--cache", cache])
        for width in 100..<108 {
            let answer = try await service.get(path("sku-1/IMG_1.jpg", ["w:\(width)"]))
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(try ImageHeader.read(.data(answer.body)).width, width)
        }
        XCTAssertEqual(service.logLines(containing: "the cache cannot be written").count, 1, service.logText)
        await service.terminate()
        let exited = await service.waitForExit()
        XCTAssertEqual(exited, 0)
    }

    /// A cache file truncated or overwritten with junk is detected and made again; a restarted
    /// service finds its cache.
    func testADamagedCacheFileIsRegeneratedAndARestartKeepsTheCache() async throws {
        let cache = root + "/cache"
        var service = try await start(["--cache", cache])
        let request = path("sku-1/IMG_1.jpg", ["w:300"])
        let original = try await service.get(request)
        await service.terminate()
        let exited = await service.waitForExit()
        XCTAssertEqual(exited, 0)

        service = try await start(["--cache", cache])
        _ = try await service.get(request)
        // The access-log line reaches the test through a pipe, after the answer may have.
        try await waitUntil("the request's access-log line") { [service] in service.logLines(containing: " ms cache=").count == 1 }
        XCTAssertEqual(service.logLines(containing: "cache=hit").count, 1, "the restarted service found its cache")
        await service.terminate()
        await service.waitForExit()

        let files = (FileManager.default.subpaths(atPath: cache) ?? []).map { cache + "/" + $0 }.filter { (try? FileManager.default.attributesOfItem(atPath: $0)[.type] as? FileAttributeType) == .typeRegular }
        XCTAssertEqual(files.count, 1)
        for damage in [{ (data: Data) in data.prefix(data.count / 2) }, { _ in Data("junk".utf8) }] {
            try damage(try Data(contentsOf: URL(fileURLWithPath: files[0]))).write(to: URL(fileURLWithPath: files[0]))
            service = try await start(["--cache", cache])
            let again = try await service.get(request)
            XCTAssertEqual(again.body, original.body, "regenerated, not served damaged")
            try await waitUntil("the request's access-log line") { [service] in service.logLines(containing: " ms cache=").count == 1 }
            XCTAssertEqual(service.logLines(containing: "cache=miss").count, 1)
            await service.terminate()
            await service.waitForExit()
        }
    }

    /// Two services on one cache folder, under load together: every answer is a whole image, the
    /// same from either.
    func testTwoServicesSharingACacheNeverServeATornFile() async throws {
        let cache = root + "/cache"
        let services = [try await start(["--cache", cache]), try await start(["--cache", cache])]
        let requests = (0..<12).map { path("sku-1/IMG_\($0 % 2 + 1).jpg", ["w:\(150 + $0)"]) }
        let answers = try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for round in 0..<8 {
                for (index, request) in requests.enumerated() {
                    let service = services[(index + round) % 2]
                    group.addTask { (request, try await service.get(request).body) }
                }
            }
            return try await group.reduce(into: [String: Set<Data>]()) { $0[$1.0, default: []].insert($1.1) }
        }
        for (request, bodies) in answers {
            XCTAssertEqual(bodies.count, 1, "one image per URL from both services: \(request)")
            XCTAssertNoThrow(try ImageHeader.read(.data(bodies.first!)), request)
        }
    }

    /// SIGTERM with 16 requests in flight: each completes or is refused cleanly, and the service exits 0
    /// within its grace time.
    func testSIGTERMUnderLoadLosesNoRequest() async throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "sku-1/IMG_3.HEIC")
        let service = try await start(["--grace", "20", "--workers", "2", "--queue", "64"])
        let requests = (0..<16).map { path($0 % 2 == 0 ? "sku-1/IMG_3.HEIC" : "sku-1/IMG_1.jpg", ["rs:fit:\(900 + $0):\(900 + $0)"]) }
        let outcomes = await withTaskGroup(of: Int.self) { group in
            for request in requests {
                group.addTask { (try? await service.get(request, timeout: 60).status) ?? -1 }
            }
            await service.waitUntilInFlight(atLeast: 4)
            await service.terminate()
            return await group.reduce(into: []) { $0.append($1) }
        }
        let started = Date()
        let exited = await service.waitForExit()
        XCTAssertEqual(exited, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 21)
        XCTAssertTrue(outcomes.allSatisfy { $0 == 200 }, "every request in flight completed: \(outcomes)")
    }
}

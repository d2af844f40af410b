import FlyingFox
import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService
@testable import ImagePipeline

/// `serve` with http(s) sources from an origin the test runs on loopback: allowed only when asked for,
/// every spelling of an internal address refused, and each origin fault its own status.
final class RemoteSourceTests: XCTestCase {
    private var origin: HTTPServer!
    private var port = 0
    private let jpeg = try! Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/DSCN0010.jpg")))

    override func setUp() async throws {
        origin = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        let jpeg = self.jpeg
        await origin.appendRoute("/a.jpg") { _ in HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders([.contentType: "image/jpeg"]), body: jpeg) }
        await origin.appendRoute("/page.jpg") { _ in HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders([.contentType: "image/jpeg"]), body: Data("<html>".utf8)) }
        await origin.appendRoute("/truncated.jpg") { _ in HTTPResponse(statusCode: .ok, body: jpeg.prefix(jpeg.count / 2)) }
        await origin.appendRoute("/big.jpg") { _ in HTTPResponse(statusCode: .ok, body: Data(count: 3_000_000)) }
        await origin.appendRoute("/slow.jpg") { _ in
            try await Task.sleep(nanoseconds: 3_000_000_000)
            return HTTPResponse(statusCode: .ok, body: jpeg)
        }
        await origin.appendRoute("/broken.jpg") { _ in HTTPResponse(statusCode: .internalServerError) }
        await origin.appendRoute("/hop.jpg") { _ in HTTPResponse(statusCode: .found, headers: FlyingFox.HTTPHeaders([.location: "/a.jpg"])) }
        await origin.appendRoute("/metadata.jpg") { _ in HTTPResponse(statusCode: .found, headers: FlyingFox.HTTPHeaders([.location: "http://169.254.169.254/latest/meta-data"])) }
        let server = origin!
        Task { try? await server.run() }
        try await origin.waitUntilListening(timeout: 10)
        guard case .ip4(_, let bound)? = await origin.listeningAddress else { throw URLError(.cannotConnectToHost) }
        port = Int(bound)
    }

    override func tearDown() async throws {
        await origin.stop()
    }

    private func start(_ arguments: [String]) async throws -> LiveService {
        try await startService(["--root", try temporaryFolder(self), "--insecure-unsigned"] + arguments)
    }

    private func path(_ source: String) -> String {
        "/insecure" + ThumbnailURLSigner.path(options: ["w:120"], source: source)
    }

    func testOriginAnswersAndFaultsHaveTheirStatus() async throws {
        let service = try await start(["--allow-source", "http://127.0.0.1:\(port)/", "--allow-private-sources",
                                 "--max-source-bytes", "1000000", "--download-timeout", "1"])
        let base = "http://127.0.0.1:\(port)"
        let cases: [(String, Int)] = [
            ("/a.jpg", 200), ("/hop.jpg", 200), ("/page.jpg", 415), ("/truncated.jpg", 422), ("/big.jpg", 413),
            ("/slow.jpg", 504), ("/broken.jpg", 502), ("/missing.jpg", 404), ("/metadata.jpg", 404),
        ]
        for (source, status) in cases {
            let answer = try await service.get(path(base + source))
            XCTAssertEqual(answer.status, status, "\(source): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        let image = try await service.get(path(base + "/a.jpg"))
        XCTAssertEqual(try ImageHeader.read(.data(image.body)).width, 120)
        let other = try await service.get(path("http://127.0.0.2:\(port)/a.jpg"))
        XCTAssertEqual(other.status, 404, "not under an allowed prefix")
    }

    /// Only global unicast addresses are fetched from: an address from each row of IANA's IPv4 and
    /// IPv6 special-purpose registries is refused, and so is every IPv6 form that wraps an internal
    /// IPv4 address or lies outside 2000::/3; public addresses, wrapped or not, pass.
    func testOnlyGlobalUnicastAddressesAreSources() {
        let refused = [
            "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255",
            "192.0.0.8", "192.0.0.170", "192.0.2.1", "192.31.196.1", "192.52.193.1", "192.88.99.1", "192.168.1.1", "192.175.48.1",
            "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
            "::", "::1", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:0:127.0.0.1", "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::808:808", "2001::1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:2::1", "2001:10::1", "2001:20::1", "2001:db8::1",
            "2002:7f00:1::1", "2002:c0a8:101::1", "2620:4f:8000::1", "3fff::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1",
            "2607:f8b0::5efe:7f00:1", "2607:f8b0::200:5efe:a00:1", "100::1", "not an address",
        ]
        for address in refused { XCTAssertFalse(SourceAddress.isGlobal(address), address) }
        let global = ["8.8.8.8", "1.1.1.1", "192.0.3.1", "198.20.0.1", "223.255.255.1", "::ffff:8.8.8.8", "64:ff9b::808:808",
                      "2002:808:808::1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "2001:200::1", "2607:f8b0::5efe:808:808"]
        for address in global { XCTAssertTrue(SourceAddress.isGlobal(address), address) }
    }

    /// Without --allow-private-sources, a prefix on loopback is refused at start however it is
    /// spelled, with the reason (it used to start, then answer every request "not under an allowed
    /// prefix"); with it, the same spelling is fetched.
    func testInternalAddressesAreRefusedInEverySpelling() async throws {
        let spellings = ["127.0.0.1", "127.1", "0x7f000001", "2130706433", "localhost", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"]
        let folder = try temporaryFolder(self)
        for spelling in spellings {
            let refused = LiveService.refusal(["--root", folder, "--insecure-unsigned", "--allow-source", "http://\(spelling):\(port)/"],
                                              environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
            XCTAssertTrue(refused.contains("is on a private address") && refused.contains("--allow-private-sources"), "\(spelling): \(refused)")
        }
        let prefixes = spellings.flatMap { ["--allow-source", "http://\($0):\(port)/"] }
        let allowed = try await start(prefixes + ["--allow-private-sources"])
        let answer = try await allowed.get(path("http://127.1:\(port)/a.jpg"))
        XCTAssertEqual(answer.status, 200, "the same spelling works once internal addresses are allowed")
    }

    /// An origin that never stops sending, and one that refuses connections: the first is cut off as
    /// soon as the limit is passed (the origin measures how much it got to write), the second is a 502.
    func testAnEndlessBodyIsCutOffAtTheLimitAndARefusedOriginIs502() async throws {
        let endless = try EndlessOrigin()
        let refused = try LoopbackClient.freePort()
        let service = try await start(["--allow-source", "http://127.0.0.1:\(endless.port)/", "--allow-source", "http://127.0.0.1:\(refused)/",
                                 "--allow-private-sources", "--max-source-bytes", "1000000", "--download-timeout", "20"])
        let started = Date()
        let answer = try await service.get(path("http://127.0.0.1:\(endless.port)/forever.jpg"))
        XCTAssertEqual(answer.status, 413)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "cut off at the limit, not at the timeout")
        let written = endless.waitUntilCutOff(timeout: 10)
        // Loopback socket buffers hold a few MB beyond what the service read.
        XCTAssertLessThan(written, 1_000_000 + 8_000_000, "the download stopped early: the origin wrote \(written) bytes")
        let refusedAt = Date()
        let unreachable = try await service.get(path("http://127.0.0.1:\(refused)/a.jpg"))
        XCTAssertEqual(unreachable.status, 502)
        XCTAssertLessThan(Date().timeIntervalSince(refusedAt), 2, "a refused connection fails at once, not at the timeout")
    }
}

/// A loopback origin that answers one request with an endless image body, and counts what it wrote
/// until the client hung up.
private final class EndlessOrigin: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var written = 0
    private var finished = false

    init() throws {
        port = try LoopbackClient.freePort()
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackClient.socketAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread.detachNewThread { self.serve() }
    }

    private func serve() {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        var request = [UInt8](repeating: 0, count: 4096)
        _ = recv(client, &request, request.count, 0)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n\r\n".utf8)
        _ = send(client, head, head.count, Int32(MSG_NOSIGNAL))
        let chunk = [UInt8](repeating: 0xff, count: 65_536)
        while true {
            let sent = send(client, chunk, chunk.count, Int32(MSG_NOSIGNAL))
            if sent <= 0 { break }
            lock.withLock { written += sent }
        }
        close(client)
        lock.withLock { finished = true }
    }

    /// The bytes written once the client hung up (or after `timeout`).
    func waitUntilCutOff(timeout: TimeInterval) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !lock.withLock({ finished }) { usleep(10_000) }
        return lock.withLock { written }
    }

    deinit { close(listener) }
}

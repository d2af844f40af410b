import FlyingFox
import Foundation
import MarketUploader
import TestSupport
import XCTest
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
        await origin.appendRoute("/a.jpg") { _ in HTTPResponse(statusCode: .ok, headers: [.contentType: "image/jpeg"], body: jpeg) }
        await origin.appendRoute("/page.jpg") { _ in HTTPResponse(statusCode: .ok, headers: [.contentType: "image/jpeg"], body: Data("<html>".utf8)) }
        await origin.appendRoute("/truncated.jpg") { _ in HTTPResponse(statusCode: .ok, body: jpeg.prefix(jpeg.count / 2)) }
        await origin.appendRoute("/big.jpg") { _ in HTTPResponse(statusCode: .ok, body: Data(count: 3_000_000)) }
        await origin.appendRoute("/slow.jpg") { _ in
            try await Task.sleep(nanoseconds: 3_000_000_000)
            return HTTPResponse(statusCode: .ok, body: jpeg)
        }
        await origin.appendRoute("/broken.jpg") { _ in HTTPResponse(statusCode: .internalServerError) }
        await origin.appendRoute("/hop.jpg") { _ in HTTPResponse(statusCode: .found, headers: [.location: "/a.jpg"]) }
        await origin.appendRoute("/metadata.jpg") { _ in HTTPResponse(statusCode: .found, headers: [.location: "http://169.254.169.254/latest/meta-data"]) }
        let server = origin!
        Task { try? await server.run() }
        try await origin.waitUntilListening(timeout: 10)
        guard case .ip4(_, let bound)? = await origin.listeningAddress else { throw URLError(.cannotConnectToHost) }
        port = Int(bound)
    }

    override func tearDown() async throws {
        await origin.stop()
    }

    private func start(_ arguments: [String]) throws -> ServiceProcess {
        let root = try temporaryFolder(self)
        let service = try ServiceProcess(["--root", root, "--insecure-unsigned"] + arguments)
        XCTAssertTrue(service.isListening, service.logText)
        addTeardownBlock {
            service.terminate()
            service.waitForExit()
        }
        return service
    }

    private func path(_ source: String) -> String {
        "/insecure" + ThumbnailURLSigner.path(options: ["w:120"], source: source)
    }

    func testOriginAnswersAndFaultsHaveTheirStatus() async throws {
        let service = try start(["--allow-source", "http://127.0.0.1:\(port)/", "--allow-private-sources",
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

    /// Without --allow-private-sources, loopback is refused however it is spelled, before any request
    /// reaches the origin.
    func testInternalAddressesAreRefusedInEverySpelling() async throws {
        let spellings = ["127.0.0.1", "127.1", "0x7f000001", "2130706433", "localhost", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"]
        let prefixes = spellings.flatMap { ["--allow-source", "http://\($0):\(port)/"] }
        let service = try start(prefixes)
        for spelling in spellings {
            let answer = try await service.get(path("http://\(spelling):\(port)/a.jpg"))
            XCTAssertEqual(answer.status, 404, spelling)
            XCTAssertTrue(String(decoding: answer.body, as: UTF8.self).contains("source-not-allowed"), spelling)
        }
        let allowed = try start(prefixes + ["--allow-private-sources"])
        let answer = try await allowed.get(path("http://127.1:\(port)/a.jpg"))
        XCTAssertEqual(answer.status, 200, "the same spelling works once internal addresses are allowed")
    }
}

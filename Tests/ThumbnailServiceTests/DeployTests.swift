import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// `deploy/nginx-market-images.conf` as committed, run by Debian's nginx on loopback in front of the
/// service: only the addresses and the cache folder are changed for the test.
final class DeployTests: FolderTestCase {
    private static let key = "6465706c6f792d74657374", salt = "73616c74"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "nginx is not installed; run scripts/setup --tests" }
    }

    /// The site's commented maps for `serve --auto-avif --auto-jxl`, uncommented in place of the
    /// active WebP one, as its comment tells an operator to.
    private func negotiatingEveryFormat(_ site: String) throws -> String {
        var lines = site.components(separatedBy: "\n")
        let active = try XCTUnwrap(lines.firstIndex(of: "map $market_images_webp $market_images_accept {"))
        let end = try XCTUnwrap(lines[active...].firstIndex(of: "}"))
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("# adjust: with `serve --auto-avif --auto-jxl`") })
        let first = try XCTUnwrap(lines[header...].firstIndex { $0.hasPrefix("# map ") })
        let block = lines[first...].prefix { $0.hasPrefix("# map ") || $0.hasPrefix("#     ") || $0 == "# }" }.map { String($0.dropFirst(2)) }
        XCTAssertEqual(block.filter { $0.hasPrefix("map ") }.count, 3)
        lines.replaceSubrange(active...end, with: block)
        return lines.joined(separator: "\n")
    }

    private func startNginx(upstream: Int, everyFormat: Bool = false) throws -> (port: Int, process: Process) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else { throw Missing() }
        let folder = root + "/nginx"
        try FileManager.default.createDirectory(atPath: folder + "/cache", withIntermediateDirectories: true)
        let port = try LoopbackClient.freePort()
        let repository = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        var site = try String(contentsOf: repository.appendingPathComponent("deploy/nginx-market-images.conf"), encoding: .utf8)
        for (committed, local) in [("/var/cache/nginx/market-images", folder + "/cache"), ("server 127.0.0.1:8080 ", "server 127.0.0.1:\(upstream) "),
                                   ("server 127.0.0.1:8081 fail_timeout=2s;", ""), ("server 127.0.0.1:8082 fail_timeout=2s;", ""),
                                   ("listen 80;", "listen 127.0.0.1:\(port);")] {
            XCTAssertTrue(site.contains(committed), "the site config still has \(committed)")
            site = site.replacingOccurrences(of: committed, with: local)
        }
        if everyFormat { site = try negotiatingEveryFormat(site) }
        try site.write(toFile: folder + "/site.conf", atomically: true, encoding: .utf8)
        let temporaries = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(folder)/\($0);" }.joined(separator: " ")
        let main = """
        daemon off; worker_processes 1; pid \(folder)/nginx.pid; error_log \(folder)/error.log warn;
        \(geteuid() == 0 ? "user root root;" : "")
        events { worker_connections 128; }
        http { access_log \(folder)/access.log; \(temporaries) include \(folder)/site.conf; }
        """
        try main.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", folder + "/nginx.conf", "-p", folder]
        process.standardError = FileHandle.nullDevice
        try process.run()
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        return (port, process)
    }

    func testNginxServesTheSecondRequestFromItsCacheWithoutReachingTheService() async throws {
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        let service = try await startService(["--root", input], environment: ["MARKET_IMAGES_KEY": Self.key, "MARKET_IMAGES_SALT": Self.salt],
                                       secrets: [Self.key, Self.salt])
        let nginx = try startNginx(upstream: try XCTUnwrap(service.base.port))
        let front = LoopbackClient(base: URL(string: "http://127.0.0.1:\(nginx.port)")!)
        try await front.waitUntilListening()
        let signer = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let path = signer.signedPath(options: ["pr:list", "dpr:3"], source: "local:///sku-1/IMG_1.jpg")

        let first = try await front.get(path, headers: ["Accept": "image/jpeg"])
        let second = try await front.get(path, headers: ["Accept": "image/jpeg"])
        XCTAssertEqual([first.status, second.status], [200, 200])
        XCTAssertEqual([first.header("X-Cache-Status"), second.header("X-Cache-Status")], ["MISS", "HIT"])
        XCTAssertEqual(first.body, second.body)
        XCTAssertEqual(first.header("Content-Type"), "image/jpeg")
        let shown = service.logLines(containing: "/pr:list/dpr:3/")
        XCTAssertEqual(shown.count, 1, "the second request never reached the service:\n\(service.logText)")

        // A browser that takes WebP gets its own cached answer; a refusal is never cached.
        let webp = try await front.get(path, headers: ["Accept": "text/html,image/avif,image/webp,*/*"])
        let webpAgain = try await front.get(path, headers: ["Accept": "image/webp,*/*"])
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        XCTAssertEqual(webpAgain.header("X-Cache-Status"), "HIT", "Accept headers are reduced to two cache keys")
        let refusesWebP = try await front.get(path, headers: ["Accept": "image/webp ; q = 0, image/jpeg"])
        XCTAssertEqual([refusesWebP.header("Content-Type"), refusesWebP.header("X-Cache-Status")], ["image/jpeg", "HIT"],
                       "WebP at quality 0 is refused, spaces or not")

        // A query string is no way around the cache: the key is the path.
        for _ in 0..<5 {
            let busted = try await front.get(path + "?cb=\(UInt32.random(in: 0...UInt32.max))", headers: ["Accept": "image/jpeg"])
            XCTAssertEqual([busted.status], [200])
            XCTAssertEqual(busted.header("X-Cache-Status"), "HIT")
        }
        XCTAssertEqual(service.logLines(containing: "/pr:list/dpr:3/").count, 2, "one JPEG and one WebP render:\n\(service.logText)")
        let forged = "/AAAA" + path.drop { $0 != "/" }.dropFirst().drop { $0 != "/" }
        for _ in 0..<2 {
            let refused = try await front.get(String(forged))
            XCTAssertEqual(refused.status, 403)
        }
        XCTAssertEqual(service.logLines(containing: " 403 ").count, 2, "refusals are not cached")
        let metrics = try await front.get("/metrics")
        XCTAssertEqual(metrics.status, 404, "metrics are not public")
    }

    /// With the site's maps for `--auto-avif --auto-jxl`: Safari 17 gets JPEG XL, Chrome AVIF, an
    /// older browser WebP, each cached apart, and every Accept string of a kind shares its entry.
    func testTheSitesMapsForJPEGXLAndAVIFNegotiateEveryFormat() async throws {
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        let service = try await startService(["--root", input, "--auto-avif", "--auto-jxl"],
                                       environment: ["MARKET_IMAGES_KEY": Self.key, "MARKET_IMAGES_SALT": Self.salt], secrets: [Self.key, Self.salt])
        let nginx = try startNginx(upstream: try XCTUnwrap(service.base.port), everyFormat: true)
        let front = LoopbackClient(base: URL(string: "http://127.0.0.1:\(nginx.port)")!)
        try await front.waitUntilListening()
        let path = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt).signedPath(options: ["pr:list", "dpr:2"], source: "local:///sku-1/IMG_1.jpg")
        let browsers: [(accept: String, type: String, cache: String)] = [
            ("image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "image/jxl", "MISS"),
            ("image/jxl,*/*", "image/jxl", "HIT"),
            ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/avif", "MISS"),
            ("image/jxl;q=0,image/avif,*/*", "image/avif", "HIT"),
            ("image/webp,*/*", "image/webp", "MISS"),
            ("*/*", "image/jpeg", "MISS"),
        ]
        for browser in browsers {
            let answer = try await front.get(path, headers: ["Accept": browser.accept])
            XCTAssertEqual([answer.status], [200], browser.accept)
            XCTAssertEqual([answer.header("Content-Type"), answer.header("X-Cache-Status")], [browser.type, browser.cache], browser.accept)
        }
        XCTAssertEqual(service.logLines(containing: "/pr:list/dpr:2/").count, 4, "one render per format:\n\(service.logText)")
    }

    /// The unit's flags give every instance, whatever its port, a valid metrics address apart from its
    /// images' (`1%i` made 110080 of @10080).
    func testTheUnitsPortsWorkForEveryInstancePort() throws {
        let repository = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: repository.appendingPathComponent("deploy/market-images@.service"), encoding: .utf8)
        let flags = unit.matches(of: /--(bind|metrics-bind) (\S+)/).flatMap { ["--" + $0.output.1, String($0.output.2)] }
        XCTAssertEqual(flags.count, 4, unit)
        for port in ["80", "8080", "10080", "65535"] {
            let arguments = flags.map { $0.replacingOccurrences(of: "%i", with: port) } + ["--root", root, "--insecure-unsigned"]
            let configuration = try ServiceSettings(arguments: arguments, environment: [:]).configuration
            XCTAssertNotEqual(configuration.bind, configuration.metricsBind, port)
        }
    }

    /// The unit as committed scores 1.3 or better in `systemd-analyze security` (was 4.4): removing a
    /// hardening setting fails this. Its threshold is in tenths.
    func testTheUnitKeepsItsHardening() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { throw XCTSkip("systemd-analyze is not installed") }
        let repository = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        let unit = root + "/market-images@8080.service"
        try FileManager.default.copyItem(atPath: repository.appendingPathComponent("deploy/market-images@.service").path, toPath: unit)
        let output = try ProcessOutput.run(analyze, ["security", "--offline=true", "--threshold=13", unit])
        let text = String(decoding: output, as: UTF8.self)
        XCTAssertTrue(text.contains("Overall exposure level for market-images@8080.service: 1.3"), text)
        for setting in ["SystemCallArchitectures=", "ProtectKernelLogs=", "ProtectClock=", "ProtectHostname=", "RestrictRealtime=", "ProtectProc=", "UMask="] {
            XCTAssertTrue(text.contains("✓ \(setting)"), "\(setting) is set")
        }
    }
}

import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ImagePipeline
@testable import ThumbnailService

/// The service as `serve` runs it, in process (`LiveService`), spoken to over loopback HTTP with URLSession.
final class ServeTests: FolderTestCase {
    private static let key = "6d61726b65742d696d616765732d74657374"
    private static let salt = "73616c74"
    private let signer = try! ThumbnailURLSigner(hexKey: ServeTests.key, hexSalt: ServeTests.salt)

    private func start(_ arguments: [String] = []) async throws -> LiveService {
        try await startService(["--root", input] + arguments, environment: ["MARKET_IMAGES_KEY": Self.key, "MARKET_IMAGES_SALT": Self.salt],
                         secrets: [Self.key, Self.salt])
    }

    private func path(_ source: String, _ options: [String], format: String? = nil) -> String {
        signer.signedPath(options: options, source: "local:///" + source, format: format)
    }

    private func header(of body: Data) throws -> ImageHeader { try ImageHeader.read(.data(body)) }

    /// A hand-written path, signed as it is (percent-encoding and all).
    private func signed(_ path: String) -> String { "/" + signer.signature(for: path) + path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        try copy("alpha/alpha-layer-1-fill.png", to: "sku-1/cutout.png")
        try copy("metadata/everything.jpg", to: "sku-1/gps.jpg")
    }

    /// Sizes, formats by Accept, the budget, 304, the cache, and no metadata in any response.
    func testImagesAtTheRequestedSizeAndFormatRevalidatedAndCached() async throws {
        let service = try await start(["--cache", root + "/cache"])
        let list = path("sku-1/IMG_1.jpg", ["pr:list", "dpr:3"])
        let webp = try await service.get(list, headers: ["Accept": "image/avif,image/webp,*/*"])
        XCTAssertEqual(webp.status, 200, String(decoding: webp.body, as: UTF8.self))
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        XCTAssertEqual(webp.header("Vary"), "Accept")
        XCTAssertEqual(webp.header("Cache-Control"), "public, max-age=31536000, immutable")
        XCTAssertNotNil(webp.header("Last-Modified"))
        let webpHeader = try header(of: webp.body)
        XCTAssertEqual([webpHeader.width, webpHeader.height], [240, 240])
        let jpeg = try await service.get(list)
        XCTAssertEqual(jpeg.header("Content-Type"), "image/jpeg")
        XCTAssertNotEqual(jpeg.header("ETag"), webp.header("ETag"))

        let etag = try XCTUnwrap(webp.header("ETag"))
        let revalidated = try await service.get(list, headers: ["Accept": "image/webp", "If-None-Match": etag])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertTrue(revalidated.body.isEmpty)
        for tags in ["W/" + etag, "\"other\", " + etag, "*"] {
            let weak = try await service.get(list, headers: ["Accept": "image/webp", "If-None-Match": tags])
            XCTAssertEqual(weak.status, 304, tags)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let modified = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: input + "/sku-1/IMG_1.jpg")[.modificationDate] as? Date)
        XCTAssertEqual(webp.header("Last-Modified"), formatter.string(from: modified))
        let again = try await service.get(list, headers: ["Accept": "image/webp"])
        XCTAssertEqual(again.body, webp.body)
        let metrics = try await service.metrics()
        XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="hit"} 1"#), metrics)
        let publicMetrics = try await service.get("/metrics")
        XCTAssertEqual(publicMetrics.status, 404, "metrics are served on their own port only")

        let budget = try await service.get(path("sku-1/IMG_1.jpg", ["rs:fit:1200:1200", "q:95", "mb:20000"], format: "jpg"))
        XCTAssertEqual(budget.status, 200)
        XCTAssertLessThanOrEqual(budget.body.count, 20_000)
        let cutout = try await service.get(path("sku-1/cutout.png", ["rs:fit:300:300"]))
        XCTAssertEqual(cutout.header("Content-Type"), "image/png", "transparency and no budget: PNG")
        let fill = try await service.get(path("sku-1/IMG_1.jpg", ["rs:fill:300:100", "g:no"], format: "png"))
        XCTAssertEqual([try header(of: fill.body).width, try header(of: fill.body).height], [300, 100])

        var files: [String] = []
        for (index, answer) in [webp, jpeg, budget, cutout, fill, try await service.get(path("sku-1/gps.jpg", ["w:200"]))].enumerated() {
            let file = root + "/response-\(index)"
            try answer.body.write(to: URL(fileURLWithPath: file))
            files.append(file)
        }
        for (file, tags) in try Exiftool.metadata(in: files) { XCTAssertEqual(tags, [], file) }
    }

    /// The list and grid presets are the very thumbnails `thumbs` writes, byte for byte.
    func testPresetsGiveExactlyWhatThumbsWrites() async throws {
        let made = try FolderProcessor(job: FolderJob(inputs: [input], outputFolder: root + "/thumbs", prepare: nil, thumbnails: ThumbnailOptions())).run { _ in }
        XCTAssertEqual(made.failed.count, 0)
        let service = try await start()
        for (preset, dpr, file) in [("list", 3, "list@3x"), ("list", 2, "list@2x"), ("grid", 3, "grid@3x"), ("grid", 2, "grid@2x")] {
            let answer = try await service.get(path("sku-1/IMG_1.jpg", ["pr:\(preset)", "dpr:\(dpr)"], format: "jpg"))
            XCTAssertEqual(answer.status, 200)
            let written = try Data(contentsOf: URL(fileURLWithPath: root + "/thumbs/sku-1/IMG_1.\(file).jpg"))
            XCTAssertEqual(answer.body, written, "pr:\(preset)/dpr:\(dpr) is \(file).jpg")
        }
    }

    /// Every refusal with its status, a JSON body, and no secret or full signature in the log.
    func testRefusalsHaveTheirStatus() async throws {
        try Data("<html>not an image</html>".utf8).write(to: URL(fileURLWithPath: input + "/sku-1/fake.jpg"))
        let jolla = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg")))
        try jolla.prefix(jolla.count / 2).write(to: URL(fileURLWithPath: input + "/sku-1/truncated.jpg"))
        try copy("hostile/giant-image.jpg", to: "sku-1/giant.jpg")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/outside.jpg"))
        let service = try await start()
        let good = path("sku-1/IMG_1.jpg", ["w:100"])
        let forged = "/" + String(repeating: "A", count: 43) + String(good.drop { $0 != "/" }.dropFirst().drop { $0 != "/" })
        let cases: [(String, Int)] = [
            (forged, 403), ("/w:100/plain/local:///sku-1/IMG_1.jpg", 403), ("/unsafe" + good.drop { $0 != "/" }.dropFirst().drop { $0 != "/" }, 403),
            (path("sku-1/IMG_1.jpg", ["frobnicate:1"]), 400), (path("sku-1/IMG_1.jpg", ["w:-5"]), 400),
            (path("sku-1/IMG_1.jpg", ["rs:fill:99999999:1"]), 400), (path("sku-1/IMG_1.jpg", ["pr:nope"]), 404),
            (path("sku-1/IMG_1.jpg", ["exp:1000"]), 404), (path("../outside.jpg", ["w:10"]), 404),
            (signed("/w:10/plain/local:///sku-1/%2e%2e/%2e%2e/outside.jpg"), 404), (signed("/w:10/plain/local:///sku-1/IMG_1.jpg%00.png"), 404),
            (path("sku-1/missing.jpg", ["w:10"]), 404), (signer.signedPath(options: ["w:10"], source: "https://example.com/a.jpg"), 404),
            (path("sku-1/fake.jpg", ["w:10"]), 415), (path("sku-1/truncated.jpg", ["w:100"]), 422), (path("sku-1/giant.jpg", ["w:100"]), 413),
        ]
        for (request, expected) in cases {
            let answer = try await service.get(request)
            XCTAssertEqual(answer.status, expected, "\(request): \(String(decoding: answer.body, as: UTF8.self))")
            XCTAssertEqual(answer.header("Content-Type"), "application/json", request)
            XCTAssertEqual(answer.header("Cache-Control"), "no-store", request)
            let body = try JSONSerialization.jsonObject(with: answer.body) as? [String: String]
            XCTAssertNotNil(body?["error"], request)
            XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains(root), "no server paths in \(request)")
        }
        let stillServing = try await service.get(good)
        XCTAssertEqual(stillServing.status, 200, "still serving everyone else")
        let log = service.logText
        XCTAssertFalse(log.contains(Self.key) || log.contains(Self.salt), "no key or salt in the log")
        XCTAssertFalse(log.contains(String(good.dropFirst().prefix { $0 != "/" })), "no full signature in the log")
        XCTAssertGreaterThanOrEqual(log.components(separatedBy: " GET /…/").count - 1, cases.count, "one access-log line per request")
    }

    /// Twenty identical requests at once: one processing. A full queue: 503 with Retry-After.
    func testConcurrentRequestsAreProcessedOnceAndOverloadIsRefusedFast() async throws {
        let service = try await start(["--workers", "1", "--queue", "1"])
        let same = path("sku-1/IMG_1.jpg", ["rs:fit:1500:1500", "q:90"])
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await service.get(same).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(answers, Array(repeating: 200, count: 20))
        let metrics = try await service.metrics()
        XCTAssertTrue(metrics.contains("market_images_processing_seconds_count 1"), metrics)

        let requests = (0..<8).map { path("sku-1/IMG_1.jpg", ["rs:fit:\(1400 + $0):\(1400 + $0)"]) }
        let distinct = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for request in requests {
                group.addTask {
                    let answer = try await service.get(request)
                    return (answer.status, answer.header("Retry-After"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertTrue(distinct.allSatisfy { [200, 503].contains($0.0) }, "\(distinct)")
        XCTAssertTrue(distinct.contains { $0.0 == 503 && $0.1 == "1" }, "one worker and a queue of one cannot take eight at once: \(distinct)")
        XCTAssertTrue(distinct.contains { $0.0 == 200 })
    }

    /// SIGTERM with more work in flight than `--grace` allows: every client gets a whole answer, the
    /// image or a 503 with Retry-After when the grace ends, never a cut connection; the service exits 0.
    func testWhenTheGraceRunsOutRequestsAreAnswered503() async throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "sku-1/IMG_2.HEIC")
        let service = try await start(["--grace", "1", "--workers", "1"])
        let requests = (0..<4).map { path("sku-1/IMG_2.HEIC", ["rs:fit:2048:2048", "mb:\(200_000 + $0)"]) }
        let answers = requests.map { request in Task { try await service.get(request, timeout: 30) } }
        let inFlight = await service.waitUntilInFlight(atLeast: 4)
        XCTAssertTrue(inFlight)
        let stopped = Date()
        await service.terminate()
        var statuses: [Int] = []
        for answer in answers {
            let answer = try await answer.value
            statuses.append(answer.status)
            if answer.status == 503 { XCTAssertEqual(answer.header("Retry-After"), "1") }
        }
        let exited = await service.waitForExit()
        XCTAssertEqual(exited, 0)
        XCTAssertTrue(statuses.allSatisfy { [200, 503].contains($0) }, "\(statuses)")
        XCTAssertTrue(statuses.contains(503), "one worker cannot render four in a second: \(statuses)")
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 1 + 2 + 3, "the grace, the margin to answer, and exiting")
    }

}

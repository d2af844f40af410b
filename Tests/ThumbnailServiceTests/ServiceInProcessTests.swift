import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import Logging
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// The thumbnail service in process, mounted on a router as another server would mount it, spoken
/// to through HummingbirdTesting: no port, no binary. Each answer is checked as a client would:
/// status, headers, and the image read back.
final class ServiceInProcessTests: ServiceTestCase {
    /// `pr:upload` is what `prepare` makes, byte for byte: one render spec, one pipeline. Photos
    /// over the budget at the top quality (where the old preset's quality range gave
    /// other bytes), and noise, the hardest photo there is to fit.
    func testTheUploadPresetGivesPreparesBytes() async throws {
        let photos = ["photos/2569067123_aca715a2ee_o.jpg", "photos/iphone_13_pro_max.HEIC", "photos/flowers.jpeg", "photos/DSCN0010.jpg"]
        for (index, photo) in photos.enumerated() { try copy(photo, to: "upload/\(index)") }
        try GeneratedImage.noise(width: 2600, height: 1800, to: input + "/upload/noise")
        let sources = photos.indices.map { "upload/\($0)" } + ["upload/noise"]
        let (preparer, input) = (try ImagePreparer(), input)
        let paths = sources.map { path(["pr:upload"], source: "local:///" + $0) }
        try await withService(configuration()) { _, client in
            for (source, path) in zip(sources, paths) {
                let prepared = try preparer.prepare(file: input + "/" + source)
                let served = try await client.execute(uri: path, method: .get) { $0 }
                XCTAssertEqual(served.status, .ok, source)
                XCTAssertEqual(Data(buffer: served.body), prepared.data, "\(source): pr:upload and prepare differ")
                XCTAssertLessThanOrEqual(prepared.byteCount, 300_000)
                if source.hasSuffix("noise") { XCTAssertLessThan(prepared.width, 2048, "the budget had to shrink the noise") }
            }
        }
    }

    /// Mounted on another app's router, where `bind` says nothing of the address it is reached on,
    /// a service with no key starts only when told what to accept unsigned, and says it at start.
    func testUnsignedURLsInLibraryUseAreAnExplicitChoice() async throws {
        var configuration = configuration()
        configuration.keys = []
        XCTAssertThrowsError(try ThumbnailService(configuration, logger: Logger(label: "test"))) { error in
            XCTAssertEqual((error as? ServiceConfiguration.Problem)?.setting, "insecure-unsigned")
        }
        for (choice, sentence) in [(\ServiceConfiguration.onlyPresets, "unsigned URLs naming presets only"),
                                   (\ServiceConfiguration.allowUnsigned, "any URL unsigned (allowUnsigned)")] {
            var chosen = configuration
            chosen[keyPath: choice] = true
            let log = LogLines()
            try await withService(chosen, log: log) { _, client in
                let status = try await client.execute(uri: "/insecure/pr:list/plain/local:///sku-1/IMG_1.jpg", method: .get) { $0.status }
                XCTAssertEqual(status, .ok)
                let refused = try await client.execute(uri: "/insecure/rs:fit:3000:3000/plain/local:///sku-1/IMG_1.jpg", method: .get) { $0.status }
                XCTAssertEqual(refused, choice == \ServiceConfiguration.onlyPresets ? .badRequest : .ok)
            }
            XCTAssertTrue(log.all.contains("thumbnail service accepts " + sentence), "\(log.all)")
        }
    }

    /// Under `onlyPresets`, an unsigned client cannot make new outputs: every spelling of a `dpr` of
    /// the set and of a source is one output (one render), any other `dpr` is refused.
    func testUnderOnlyPresetsEverySpellingIsOneOutput() async throws {
        var configuration = configuration()
        (configuration.keys, configuration.onlyPresets) = ([], true)
        try await withService(configuration) { service, client in
            var tags: Set<String> = []
            for dpr in ["2", "2.0", "0x1p1", "2e0"] {
                for source in ["local:///sku-1/IMG_1.jpg", "local:///sku-1//IMG_1.jpg", "local:////sku-1/IMG_1.jpg"] {
                    let answer = try await client.execute(uri: "/insecure/pr:list/dpr:\(dpr)/f:jpg/plain/" + source, method: .get) { $0 }
                    XCTAssertEqual(answer.status, .ok, "dpr:\(dpr) \(source)")
                    tags.insert(answer.headers[.eTag] ?? "")
                }
            }
            XCTAssertEqual(tags.count, 1, "one output")
            XCTAssertTrue(service.renderMetrics().contains(#"market_images_cache_total{outcome="miss"} 1"#), service.renderMetrics())
            for dpr in ["2.002", "4", "1.0001"] {
                let refused = try await client.execute(uri: "/insecure/pr:list/dpr:\(dpr)/plain/local:///sku-1/IMG_1.jpg", method: .get) { $0 }
                XCTAssertEqual(refused.status, .badRequest, dpr)
                XCTAssertTrue(String(buffer: refused.body).contains("one of 1, 2, 3"), String(buffer: refused.body))
            }
            let dotted = try await client.execute(uri: "/insecure/pr:list/plain/local:///sku-1/./IMG_1.jpg", method: .get) { $0.status }
            XCTAssertEqual(dotted, .notFound)
        }
    }

    /// Small files that cost gigabytes to decode are refused from their header, 413, before any
    /// pixel is decoded: a 35-byte GIF whose one 1×1 frame sits on a 16383² screen, and a progressive
    /// 4:4:4 JPEG (every coefficient held) past a low limit, while its baseline twin is served, and a
    /// CMYK one as large; and outputs that cost more than their source (enlarged, AVIF).
    func testCostlyDecodesAreRefusedFromTheHeader() async throws {
        var gif = Data("GIF89a".utf8) + [0xFF, 0x3F, 0xFF, 0x3F, 0x00, 0x00, 0x00]
        gif += [0x2C, 0xFE, 0x3F, 0xFE, 0x3F, 0x01, 0x00, 0x01, 0x00, 0x80, 0, 0, 0, 255, 255, 255, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        try gif.write(to: URL(fileURLWithPath: input + "/sku-1/screen.gif"))
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", """
            import sys
            from PIL import Image
            image = Image.linear_gradient("L").resize((2400, 2400)).convert("RGB")
            image.save(sys.argv[1] + "/progressive.jpg", progressive=True, subsampling=0, quality=90)
            image.save(sys.argv[1] + "/baseline.jpg", subsampling=0, quality=90)
            Image.linear_gradient("L").resize((4000, 4000)).convert("CMYK").save(sys.argv[1] + "/cmyk.jpg", quality=90)
            image.resize((640, 640)).save(sys.argv[1] + "/small.jpg")
            """, input + "/sku-1"])
        var configuration = configuration()
        configuration.limits.maxRenderMemory = 48 << 20
        // A CMYK JPEG shrinks on load too (loaded whole, it once took 64 MB here, and a minute at 16383²).
        // What the output will be counts as well as the source: a small photo enlarged, and AVIF
        // (whose encoder holds about 21 bytes an output pixel).
        let cases = [("screen.gif", HTTPResponse.Status.contentTooLarge), ("progressive.jpg", .contentTooLarge), ("baseline.jpg", .ok),
                     ("cmyk.jpg", .ok)]
            .map { (path(["pr:list"], source: "local:///sku-1/" + $0.0), $0.1) }
            + [(["rs:fit:1200:1200", "el:1"], "jpg", HTTPResponse.Status.ok), (["rs:fit:2048:2048", "el:1"], "jpg", .contentTooLarge),
               (["rs:fit:1200:1200", "el:1"], "avif", .contentTooLarge)]
            .map { (path($0.0, source: "local:///sku-1/small.jpg", format: $0.1), $0.2) }
        let info = "/info" + path([], source: "local:///sku-1/screen.gif"), others = path(["pr:list"])
        try await withService(configuration) { _, client in
            for (uri, status) in cases {
                let answer = try await client.execute(uri: uri, method: .get) { $0 }
                XCTAssertEqual(answer.status, status, uri)
                if status != .ok { XCTAssertTrue(String(buffer: answer.body).contains("too-costly"), String(buffer: answer.body)) }
            }
            let described = try await client.execute(uri: info, method: .get) { $0.status }
            XCTAssertEqual(described, .contentTooLarge, "an info URL decodes too")
            let served = try await client.execute(uri: others, method: .get) { $0.status }
            XCTAssertEqual(served, .ok)
        }
    }

    /// A render past `--render-timeout` is stopped and answered 503 `timed-out` (imgproxy's timeout
    /// status) long before it would have ended, and counted; the next request is served.
    func testARenderPastItsTimeIsStoppedWith503() async throws {
        try GeneratedImage.noise(width: 2000, height: 2000, to: input + "/sku-1/noise.png")
        var configuration = configuration()
        configuration.workers = 1
        configuration.limits.renderTimeout = .milliseconds(100)
        let slow = path(["rs:fit:3500:3500", "el:1"], source: "local:///sku-1/noise.png", format: "png"), small = path(["w:100"])
        try await withService(configuration) { service, client in
            let clock = ContinuousClock(), start = clock.now
            let answer = try await client.execute(uri: slow, method: .get) { $0 }
            let took = clock.now - start
            XCTAssertEqual(answer.status, .serviceUnavailable)
            XCTAssertEqual(String(buffer: answer.body), #"{"detail":"stopped after 0.1 s, the time one image may take","error":"timed-out"}"#)
            XCTAssertLessThan(took, .milliseconds(600), "stopped near its deadline, not after the whole render")
            XCTAssertTrue(service.renderMetrics().contains(#"market_images_renders_stopped_total{reason="timeout"} 1"#), service.renderMetrics())
            let next = try await client.execute(uri: small, method: .get) { $0.status }
            XCTAssertEqual(next, .ok)
        }
    }

    /// Neither an image URL's signature nor an info URL's (which signs the image URL too) is logged.
    func testNoSignatureIsLogged() async throws {
        let log = LogLines()
        let image = path(["pr:list"]), info = "/info" + path(["pr:list"])
        let signature = String(image.dropFirst().prefix { $0 != "/" })
        try await withService(configuration(), log: log) { _, client in
            for uri in [image, info] {
                let status = try await client.execute(uri: uri, method: .get) { $0.status }
                XCTAssertEqual(status, .ok, uri)
            }
        }
        let lines = log.all.filter { $0.contains(" ms cache=") }
        XCTAssertEqual(lines.count, 2, "\(log.all)")
        XCTAssertTrue(lines[1].hasPrefix("GET /info/…/pr:list/"), lines[1])
        XCTAssertFalse(log.all.joined(separator: "\n").contains(signature.prefix(8)), "\(log.all)")
    }

    /// However a path reaches its signature (empty or dot segments first, after `info/`, under a
    /// prefix), that segment is the one elided, and only that one.
    func testTheSignatureSegmentIsElidedHoweverThePathIsSpelt() {
        let cases: [(path: String, prefix: String, logged: String)] = [
            ("/SIG/pr:list/plain/x", "", "/…/pr:list/plain/x"), ("/info/SIG/pr:list/x", "", "/info/…/pr:list/x"),
            ("//SIG/w:1/x", "", "//…/w:1/x"), ("/../SIG/w:1/x", "", "/../…/w:1/x"), ("/./info/x", "", "/./…/x"),
            ("/info", "", "/…"), ("/info/", "", "/info/"), ("/", "", "/"), ("", "", ""), ("/health", "", "/health"),
            ("/img/SIG/w:1/x", "/img", "/img/…/w:1/x"), ("/img/info/SIG/x", "/img", "/img/info/…/x"), ("/other/SIG", "/img", "/…"),
            ("/health", "/img", "/health"),
        ]
        for (path, prefix, logged) in cases {
            XCTAssertEqual(AccessLog<BasicRequestContext>.elidingSignature(path, under: prefix), logged, "\(prefix) \(path)")
        }
    }

    /// A 65,000-character path with a bad signature is refused 403 and logged as one line holding
    /// the path's first 512 bytes and how many more it had: long refusals cannot fill the log's disk.
    func testALongPathIsLoggedCutShort() async throws {
        let log = LogLines()
        let uri = "/bad-signature/" + String(repeating: "w:1/", count: 16_246) + "x"
        XCTAssertEqual(uri.utf8.count, 65_000)
        try await withService(configuration(), log: log) { _, client in
            let status = try await client.execute(uri: uri, method: .get) { $0.status }
            XCTAssertEqual(status, .forbidden)
        }
        let lines = log.all.filter { $0.contains(" ms cache=") }
        XCTAssertEqual(lines.count, 1, "\(log.all.map { $0.prefix(200) })")
        let logged = "/…/" + String(repeating: "w:1/", count: 16_246) + "x"
        let kept = String(decoding: logged.utf8.prefix(AccessLogLine.maxPathBytes), as: UTF8.self)
        XCTAssertTrue(lines[0].hasPrefix("GET " + kept + "…[+\(logged.utf8.count - AccessLogLine.maxPathBytes) bytes] 403 "),
                      String(lines[0].prefix(700)))
        XCTAssertLessThan(lines[0].utf8.count, 600)
    }

    func testAnImageURLGivesTheSizeFormatAndAStableETag() async throws {
        let list = path(["pr:list", "dpr:3"]), budgeted = path(["rs:fit:1500:1500", "mb:30000"])
        try await withService(configuration()) { _, client in
            let webp = try await client.execute(uri: list, method: .get, headers: [.accept: "image/webp"]) { $0 }
            XCTAssertEqual(webp.status, .ok)
            XCTAssertEqual(webp.headers[.contentType], "image/webp")
            XCTAssertEqual(webp.headers[.vary], "Accept")
            let image = try ImageHeader.read(.data(Data(buffer: webp.body)))
            XCTAssertEqual([image.width, image.height], [240, 240])
            let etag = try XCTUnwrap(webp.headers[.eTag])
            let again = try await client.execute(uri: list, method: .get, headers: [.accept: "image/webp"]) { $0 }
            XCTAssertEqual(again.headers[.eTag], etag)
            XCTAssertEqual(again.body, webp.body, "the same request gives the same bytes")
            let jpeg = try await client.execute(uri: list, method: .get) { $0 }
            XCTAssertEqual(jpeg.headers[.contentType], "image/jpeg")
            XCTAssertNotEqual(jpeg.headers[.eTag], etag, "another format, another tag")
            let revalidated = try await client.execute(uri: list, method: .get, headers: [.accept: "image/webp", .ifNoneMatch: etag]) { $0 }
            XCTAssertEqual(revalidated.status, .notModified)

            let budget = try await client.execute(uri: budgeted, method: .get) { $0 }
            XCTAssertLessThanOrEqual(budget.body.readableBytes, 30_000)
            let head = try await client.execute(uri: list, method: .head) { $0 }
            XCTAssertEqual([head.status.code, head.body.readableBytes], [200, 0])
        }
    }

    /// AVIF by URL (`f:avif`) and, with `autoAVIF`, by `Accept` before WebP (a `q=0` refuses it);
    /// the output decodes to its size, carries no metadata (ExifTool), and keeps a byte budget.
    func testAVIFByURLAndByAccept() async throws {
        var configuration = configuration()
        configuration.limits.autoAVIF = true
        let list = path(["pr:list", "dpr:3"]), budgeted = path(["rs:fit:1000:1000", "mb:12000"], format: "avif")
        let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        let folder = root
        try await withService(configuration) { _, client in
            let avif = try await client.execute(uri: list, method: .get, headers: [.accept: chrome]) { $0 }
            XCTAssertEqual(avif.headers[.contentType], "image/avif")
            XCTAssertEqual(avif.headers[.vary], "Accept")
            let bytes = Data(buffer: avif.body)
            let decoded = try DecodedImage.decode(.data(bytes), maxPixels: .max) { _ in (1000, 1000) }
            XCTAssertEqual([decoded.width, decoded.height], [240, 240])
            try bytes.write(to: URL(fileURLWithPath: folder + "/list.avif"))
            XCTAssertEqual(try Exiftool.metadata(in: [folder + "/list.avif"]).values.flatMap { $0 }, [], "no metadata in the container")

            let refused = try await client.execute(uri: list, method: .get, headers: [.accept: "image/avif;q=0, image/webp"]) { $0 }
            XCTAssertEqual(refused.headers[.contentType], "image/webp")
            XCTAssertNotEqual(refused.headers[.eTag], avif.headers[.eTag])
            let budget = try await client.execute(uri: budgeted, method: .get) { $0 }
            XCTAssertEqual(budget.headers[.contentType], "image/avif")
            XCTAssertLessThanOrEqual(budget.body.readableBytes, 12_000)
        }
        try await withService(self.configuration()) { _, client in
            let webp = try await client.execute(uri: list, method: .get, headers: [.accept: chrome]) { $0.headers[.contentType] }
            XCTAssertEqual(webp, "image/webp", "AVIF by Accept only with autoAVIF")
        }
        // A higher effort is another output: other bytes, another ETag; beyond 9 is refused at start.
        let avifList = path(["pr:list", "dpr:3"], format: "avif")
        let answers = Locked<[String: Data]>([:])
        for effort in [0, 4] {
            var configuration = self.configuration()
            configuration.limits.encoder.avifEffort = effort
            try await withService(configuration) { _, client in
                let answer = try await client.execute(uri: avifList, method: .get) { $0 }
                answers.withLock { $0[answer.headers[.eTag] ?? ""] = Data(buffer: answer.body) }
            }
        }
        XCTAssertEqual(answers.current.count, 2)
        XCTAssertEqual(Set(answers.current.values).count, 2)
        var tooMuch = self.configuration()
        tooMuch.limits.encoder.avifEffort = 10
        XCTAssertEqual(tooMuch.problems.map(\.setting), ["avif-effort"])
    }

    /// JPEG XL by URL (`f:jxl`, and `fq:jxl:…`) and, with `autoJXL`, by `Accept` before AVIF and
    /// WebP: Safari 17's header; a `q=0` refuses it. libjxl's `djxl` decodes it to the size asked;
    /// ExifTool finds nothing; a byte budget holds; another effort is another ETag.
    func testJPEGXLByURLAndByAccept() async throws {
        var configuration = configuration()
        (configuration.limits.autoJXL, configuration.limits.autoAVIF) = (true, true)
        let list = path(["pr:list", "dpr:3"]), budgeted = path(["rs:fit:1000:1000", "mb:12000"], format: "jxl")
        let (square, lowerQuality) = (path(["rs:fill:240:240"]), path(["rs:fill:240:240", "fq:jxl:40"]))
        let safari = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"
        let folder = root
        try await withService(configuration) { _, client in
            let jxl = try await client.execute(uri: list, method: .get, headers: [.accept: safari]) { $0 }
            XCTAssertEqual(jxl.headers[.contentType], "image/jxl")
            XCTAssertEqual(jxl.headers[.vary], "Accept")
            let bytes = Data(buffer: jxl.body)
            let decoded = try readBack(try Djxl.png(from: bytes, in: folder), in: folder).image
            XCTAssertEqual([decoded.width, decoded.height], [240, 240])
            try bytes.write(to: URL(fileURLWithPath: folder + "/list.jxl"))
            XCTAssertEqual(try Exiftool.metadata(in: [folder + "/list.jxl"]).values.flatMap { $0 }, [], "no metadata")

            let refused = try await client.execute(uri: list, method: .get, headers: [.accept: "image/jxl;q=0, image/avif"]) { $0 }
            XCTAssertEqual(refused.headers[.contentType], "image/avif")
            let budget = try await client.execute(uri: budgeted, method: .get) { $0 }
            XCTAssertEqual(budget.headers[.contentType], "image/jxl")
            XCTAssertLessThanOrEqual(budget.body.readableBytes, 12_000)
            // The default quality is imgproxy's for JPEG XL (77); `fq` names another.
            let usual = try await client.execute(uri: square, method: .get, headers: [.accept: safari]) { $0 }
            let lower = try await client.execute(uri: lowerQuality, method: .get, headers: [.accept: safari]) { $0 }
            XCTAssertEqual([usual.headers[.contentType], lower.headers[.contentType]], ["image/jxl", "image/jxl"])
            XCTAssertLessThan(lower.body.readableBytes, usual.body.readableBytes)
        }
        let jxlList = path(["pr:list", "dpr:3"], format: "jxl")
        let tags = Locked<Set<String>>([])
        for effort in [4, 7] {
            var configuration = self.configuration()
            configuration.limits.encoder.jxlEffort = effort
            try await withService(configuration) { _, client in
                let answer = try await client.execute(uri: jxlList, method: .get) { $0 }
                XCTAssertEqual(answer.headers[.contentType], "image/jxl")
                tags.withLock { _ = $0.insert(answer.headers[.eTag] ?? "") }
            }
        }
        XCTAssertEqual(tags.current.count, 2)
        var tooLittle = self.configuration()
        tooLittle.limits.encoder.jxlEffort = 2
        XCTAssertEqual(tooLittle.problems.map(\.setting), ["jxl-effort"])
    }

    /// JPEGs are progressive unless the service is started for baseline, which changes their ETags.
    func testJPEGsAreProgressiveUnlessBaselineIsConfigured() async throws {
        let grid = path(["pr:grid", "dpr:2"], format: "jpg")
        let etags = Locked<[String]>([])
        for progressive in [true, false] {
            var configuration = configuration()
            configuration.limits.encoder.progressive = progressive
            let file = root + "/grid-\(progressive).jpg"
            try await withService(configuration) { _, client in
                let answer = try await client.execute(uri: grid, method: .get) { $0 }
                try Data(buffer: answer.body).write(to: URL(fileURLWithPath: file))
                etags.withLock { $0.append(answer.headers[.eTag] ?? "") }
            }
            XCTAssertEqual(try Exiftool.value(of: "EncodingProcess", in: file),
                           progressive ? "Progressive DCT, Huffman coding" : "Baseline DCT, Huffman coding")
        }
        XCTAssertEqual(Set(etags.current).count, 2)
    }

    /// A source that is missing or damaged answers the fallback image at the size and format asked,
    /// with the failure's status (or the one configured), a short max-age and no ETag, and is never
    /// cached as the real image: once the photo appears, it is served. A bad URL keeps its 4xx.
    func testAFailingSourceGetsTheFallbackImageAtTheSizeAsked() async throws {
        try copy("alpha/Flag_of_the_Netherlands-alpha.png", to: "fallback.png")
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: input + "/damaged.jpg"))
        var configuration = configuration()
        configuration.fallbackImage = input + "/fallback.png"
        configuration.cacheFolder = root + "/cache"
        let missing = path(["pr:list", "dpr:2"], source: "local:///sku-1/later.jpg", format: "jpg")
        let damagedPath = path(["w:100"], source: "local:///damaged.jpg"), malformedPath = path(["w:abc"], source: "local:///sku-1/later.jpg")
        let nothing = path(["pr:grid"], source: "local:///nothing.jpg")
        let input = self.input
        try await withService(configuration) { _, client in
            let answer = try await client.execute(uri: missing, method: .get) { $0 }
            XCTAssertEqual(answer.status, .notFound)
            XCTAssertEqual(answer.headers[.contentType], "image/jpeg")
            XCTAssertEqual(answer.headers[.cacheControl], "public, max-age=60")
            XCTAssertNil(answer.headers[.eTag])
            let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
            XCTAssertEqual([image.width, image.height], [160, 160])
            let damaged = try await client.execute(uri: damagedPath, method: .get) { $0 }
            XCTAssertEqual(damaged.status, .unsupportedMediaType)
            XCTAssertTrue(damaged.headers[.contentType]?.hasPrefix("image/") == true)
            let malformed = try await client.execute(uri: malformedPath, method: .get) { $0 }
            XCTAssertEqual([malformed.status.code], [400])
            XCTAssertEqual(malformed.headers[.contentType], "application/json")

            try FileManager.default.copyItem(atPath: input + "/sku-1/IMG_1.jpg", toPath: input + "/sku-1/later.jpg")
            let real = try await client.execute(uri: missing, method: .get) { $0 }
            XCTAssertEqual(real.status, .ok)
            XCTAssertNotNil(real.headers[.eTag])
            XCTAssertNotEqual(real.body, answer.body)
        }
        configuration.fallbackStatus = 200
        try await withService(configuration) { _, client in
            let status = try await client.execute(uri: nothing, method: .get) { $0.status }
            XCTAssertEqual(status, .ok)
        }
    }

    /// imgproxy's `extend`, `extend_aspect_ratio`, `padding` and `background` in URLs, and the `card`
    /// preset: sizes as asked (padding scaled by dpr), and malformed values are 400.
    func testExtendPaddingAndBackgroundInURLs() async throws {
        let cases: [([String], [Int])] = [
            (["rs:fit:300:300:0:1", "bg:ff0000"], [300, 300]), (["rs:fit:300:300", "ex:1"], [300, 300]),
            (["w:100", "pd:10", "dpr:2"], [240, 0]), (["rs:fit:400:100", "exar:1"], [400, 100]), (["pr:card", "dpr:2"], [400, 400]),
            (["rs:fill:100:100", "t:10:ffffff:1:0"], [100, 100]),
        ]
        let paths = cases.map { (path($0.0, format: "png"), $0.1) }
        let refused = [["ex:1:no"], ["bg:zzzzzz"], ["bg:1:2"], ["pd:1:2:3:4:5"], ["pd:2000"], ["t:300"], ["t:10:red"]].map { path(["w:100"] + $0) }
        try await withService(configuration()) { _, client in
            for (uri, size) in paths {
                let answer = try await client.execute(uri: uri, method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok, uri)
                let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
                XCTAssertEqual(image.width, size[0], uri)
                if size[1] > 0 { XCTAssertEqual(image.height, size[1], uri) }
            }
            for uri in refused {
                let status = try await client.execute(uri: uri, method: .get) { $0.status }
                XCTAssertEqual(status, .badRequest, uri)
            }
        }
    }

    /// Info URLs (imgproxy's `/info/…`), signed as images are or unsigned with presets only: the
    /// upright size, orientation, aspect ratio, dominant colour and ThumbHash, with an ETag.
    func testInfoURLsDescribeTheSourceAndItsPlaceholder() async throws {
        try copy("orientation/Landscape_6.jpg", to: "sideways.jpg")
        let builder = ThumbnailURLBuilder(service: URL(string: "http://service.test")!, signer: signer)
        let signed = try XCTUnwrap(builder.infoURL(for: URL(string: "local:///sideways.jpg")!)).path
        var presetsOnly = configuration()
        (presetsOnly.keys, presetsOnly.onlyPresets) = ([], true)
        let unsigned = try XCTUnwrap(ThumbnailURLBuilder(service: URL(string: "http://service.test")!).infoURL(for: URL(string: "local:///sku-1/IMG_1.jpg")!)).path
        XCTAssertTrue(unsigned.hasPrefix("/info/insecure/"), unsigned)
        try await withService(configuration()) { _, client in
            let answer = try await client.execute(uri: signed, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok, String(buffer: answer.body))
            XCTAssertEqual(answer.headers[.contentType], "application/json")
            let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
            XCTAssertEqual(info["format"] as? String, "jpeg")
            XCTAssertEqual(info["orientation"] as? Int, 6)
            let (width, height) = (try XCTUnwrap(info["width"] as? Int), try XCTUnwrap(info["height"] as? Int))
            XCTAssertEqual(info["aspectRatio"] as? Double ?? 0, Double(width) / Double(height), accuracy: 0.001)
            XCTAssertGreaterThan(width, height, "upright, the sideways photo is a landscape")
            XCTAssertEqual((info["thumbHash"] as? String).flatMap { Data(base64Encoded: $0) }.map { $0.count >= 5 }, true)
            let etag = try XCTUnwrap(answer.headers[.eTag])
            let again = try await client.execute(uri: signed, method: .get, headers: [.ifNoneMatch: etag]) { $0.status }
            XCTAssertEqual(again, .notModified)
            let forged = try await client.execute(uri: "/info/AAAA" + signed.dropFirst("/info/".count).drop { $0 != "/" }, method: .get) { $0.status }
            XCTAssertEqual(forged, .forbidden)
        }
        try await withService(presetsOnly) { _, client in
            let status = try await client.execute(uri: unsigned, method: .get) { $0.status }
            XCTAssertEqual(status, .ok)
        }
    }

    /// An info answer is kept like an image: the same source asked again under other `cb` values (a
    /// new URL each, past any proxy cache) is one decode, then hits, from memory and from disk.
    func testInfoAnswersAreCachedWhateverTheCacheBuster() async throws {
        var configuration = configuration()
        configuration.cacheFolder = root + "/cache"
        let urls = (1...3).map { signer.signedPath(options: ["cb:\($0)"], source: "local:///sku-1/IMG_1.jpg") }.map { "/info" + $0 }
        let bodies = Locked([Data]())
        try await withService(configuration) { service, client in
            for url in urls {
                let body = try await client.execute(uri: url, method: .get) { Data(buffer: $0.body) }
                bodies.withLock { $0.append(body) }
            }
            let metrics = service.renderMetrics()
            XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="miss"} 1"#), metrics)
            XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="hit"} 2"#), metrics)
        }
        try await withService(configuration) { service, client in
            let body = try await client.execute(uri: urls[0], method: .get) { Data(buffer: $0.body) }
            bodies.withLock { $0.append(body) }
            XCTAssertTrue(service.renderMetrics().contains(#"market_images_cache_total{outcome="hit"} 1"#), "from the disk")
        }
        XCTAssertEqual(bodies.current.count, 4)
        XCTAssertEqual(Set(bodies.current).count, 1)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: bodies.current[0]) as? [String: Any])
    }

    /// Each refusal with its status, where it is found: signature, options, source, method.
    func testRefusalsHaveTheirStatus() async throws {
        try copy("photos/jolla.jpg", to: "page.jpg")
        try Data("<html>".utf8).write(to: URL(fileURLWithPath: input + "/page.jpg"))
        let good = path(["w:100"])
        let forged = "/AAAA" + good.dropFirst().drop { $0 != "/" }
        let cases: [(String, HTTPRequest.Method, HTTPResponse.Status)] = [
            (forged, .get, .forbidden), (path(["w:abc"]), .get, .badRequest), (path(["nope:1"]), .get, .badRequest),
            (path(["pr:missing"]), .get, .notFound), (path(["w:100"], source: "local:///missing.jpg"), .get, .notFound),
            (path(["rs:fill:5000:5000"]), .get, .badRequest), (path(["w:100"], source: "local:///page.jpg"), .get, .unsupportedMediaType),
            (good, .post, .methodNotAllowed), ("/health", .get, .ok), ("/metrics", .get, .notFound),
        ]
        try await withService(configuration()) { _, client in
            for (uri, method, status) in cases {
                let answer = try await client.execute(uri: uri, method: method) { $0 }
                XCTAssertEqual(answer.status, status, "\(method) \(uri)")
                if status.code >= 400 {
                    XCTAssertEqual(answer.headers[.contentType], "application/json", uri)
                    XCTAssertEqual(answer.headers[.cacheControl], "no-store", uri)
                }
            }
        }
    }

    /// Hits and misses are counted in the service's own registry (several services in one process).
    func testMetricsCountCacheOutcomes() async throws {
        var configuration = configuration()
        configuration.cacheFolder = root + "/cache"
        let list = path(["pr:list"])
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: input + "/sku-1/IMG_1.jpg")[.size] as? Int)
        try await withService(configuration) { service, client in
            for _ in 0..<3 { _ = try await client.execute(uri: list, method: .get) { $0.status } }
            let metrics = service.renderMetrics()
            XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="miss"} 1"#), metrics)
            XCTAssertTrue(metrics.contains(#"market_images_cache_total{outcome="hit"} 2"#), metrics)
            XCTAssertTrue(metrics.contains(#"market_images_requests_total{status="200"} 3"#), metrics)
            XCTAssertTrue(metrics.contains(#"market_images_source_bytes_total{kind="local"} \#(size)"#), "read once, for the miss: \(metrics)")
            for counter in ["market_images_cache_evictions_total", "market_images_connections_shed_total"] {
                XCTAssertTrue(metrics.contains("# TYPE \(counter) counter\n\(counter) 0"), "\(counter) is a counter: \(metrics)")
            }
        }
    }

    /// `onlyPresets` without a key: apps use unsigned preset URLs (the signature segment may be
    /// anything), on any address; any other option is a 400 that says what is allowed (the URL is
    /// malformed for this service, not unauthorised: a key would not make it acceptable either).
    func testPresetsOnlyNeedsNoKeyAndRefusesOtherOptions() async throws {
        var configuration = configuration()
        configuration.keys = []
        configuration.onlyPresets = true
        configuration.bind = ServiceAddress(host: "0.0.0.0", port: 8080)
        XCTAssertEqual(configuration.problems, [], "no key is needed on a public address")
        let source = "local:///sku-1/IMG_1.jpg"
        let list = "/anything" + ThumbnailURLSigner.path(options: ["pr:list", "dpr:3"], source: source, format: "jpg")
        let refused = [["w:100"], ["pr:list", "q:100"], ["pr:list", "dpr:5"], ["rs:fill:2000:2000"]].map {
            "/insecure" + ThumbnailURLSigner.path(options: $0, source: source)
        }
        try await withService(configuration) { _, client in
            let answer = try await client.execute(uri: list, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok)
            let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
            XCTAssertEqual([image.width, image.height], [240, 240])
            for uri in refused {
                let answer = try await client.execute(uri: uri, method: .get) { $0 }
                XCTAssertEqual(answer.status, .badRequest, uri)
            }
        }
        // With a key, presets-only still restricts what a correctly signed URL may ask.
        var keyed = self.configuration()
        keyed.onlyPresets = true
        let signedButOther = path(["w:100"])
        try await withService(keyed) { _, client in
            let answer = try await client.execute(uri: signedButOther, method: .get) { $0 }
            XCTAssertEqual(answer.status, .badRequest)
            XCTAssertTrue(String(buffer: answer.body).contains("option-not-allowed"), String(buffer: answer.body))
        }
    }

    /// Keyless presets make exactly the documented outputs: a source has presets × `dpr` values ×
    /// formats outputs of one preset (4 × 3 × 6), each spelling of one of them one ETag, imgproxy's
    /// bare `list/…` too; more than three presets (`pr:list:card:upload:grid`, `list:card/pr:grid:upload`)
    /// and URLs naming no preset are 400. ETags are read from 304s to `If-None-Match: *`, which render nothing.
    func testKeylessPresetsMakeExactlyTheDocumentedOutputs() async throws {
        var configuration = configuration()
        configuration.keys = []
        configuration.onlyPresets = true
        let source = "local:///sku-1/IMG_1.jpg", presets = ["upload", "card", "list", "grid"]
        XCTAssertEqual(Set(ProcessingOptions.standardPresets.keys), Set(presets))
        var spellings: [(output: String, uri: String)] = []
        for preset in presets {
            for dpr in ["1", "2", "3"] {
                for format in OutputFormat.allCases {
                    let output = "\(preset)@\(dpr)x.\(format.rawValue)"
                    let name = format.rawValue
                    for options in [["pr:\(preset)", "dpr:\(dpr)", "f:\(name)"], ["dpr:\(dpr).0", "preset:\(preset)", "f:\(format.fileExtension.uppercased())"],
                                    ["cb:v2", "pr:\(preset)", "dpr:\(dpr)", "format:\(name)"], [preset, "dpr:\(dpr)", "f:\(name)"]] {
                        spellings.append((output, "/insecure" + ThumbnailURLSigner.path(options: options, source: source)))
                    }
                    spellings.append((output, "/insecure" + ThumbnailURLSigner.path(options: ["pr:\(preset)", "dpr:\(dpr)"], source: source, format: format.fileExtension)))
                    if format == .jpeg, dpr == "1" {
                        spellings.append((output, "/insecure" + ThumbnailURLSigner.path(options: ["pr:\(preset)"], source: source)))
                    }
                }
            }
        }
        let urls = spellings
        let refused = [["pr:list:card:upload:grid"], ["list:card", "pr:upload:grid"], ["pr:list", "pr:grid", "pr:list", "preset:list"], ["dpr:2"], ["f:webp"], ["cb:1"]]
            .map { "/insecure" + ThumbnailURLSigner.path(options: $0, source: source) } + ["/insecure/plain/" + source]
        try await withService(configuration) { _, client in
            var etags: [String: Set<String>] = [:]
            for (output, uri) in urls {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "*"]) { $0 }
                XCTAssertEqual(answer.status, .notModified, uri)
                etags[output, default: []].insert(answer.headers[.eTag] ?? "none")
            }
            XCTAssertEqual(etags.count, 4 * 3 * OutputFormat.allCases.count)
            XCTAssertEqual(etags.filter { $0.value.count != 1 }.map(\.key), [], "each output has one ETag, however it is spelled")
            XCTAssertEqual(Set(etags.values.flatMap { $0 }).count, etags.count, "and the outputs' ETags differ")
            for uri in refused {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "*"]) { $0 }
                XCTAssertEqual(answer.status, .badRequest, uri)
                XCTAssertTrue(String(buffer: answer.body).contains("1 to 3 a URL"), String(buffer: answer.body))
            }
        }
    }

    /// What an app builds with `MarketUploader`'s `ThumbnailURLBuilder`, no key in it: the list and
    /// grid cells of a 3× screen, from a presets-only service; and the same builder with a signer on a
    /// keyed service.
    func testTheAppsURLBuilderReachesTheService() async throws {
        var presetsOnly = configuration()
        presetsOnly.keys = []
        presetsOnly.onlyPresets = true
        let app = ThumbnailURLBuilder(service: URL(string: "http://localhost")!)
        let list = try XCTUnwrap(app.url(source: "local:///sku-1/IMG_1.jpg", preset: "list", scale: 3, format: "jpg"))
        let grid = try XCTUnwrap(app.url(source: "local:///sku-1/IMG_1.jpg", preset: "grid", scale: 3, cacheBuster: "v2"))
        try await withService(presetsOnly) { _, client in
            for (url, side) in [(list, 240), (grid, 600)] {
                let answer = try await client.execute(uri: url.path, method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok, url.path)
                let image = try ImageHeader.read(.data(Data(buffer: answer.body)))
                XCTAssertEqual([image.width, image.height], [side, side], url.path)
            }
        }
        let signed = ThumbnailURLBuilder(service: URL(string: "http://localhost/")!, signer: signer)
        let keyedList = try XCTUnwrap(signed.url(source: "local:///sku-1/IMG_1.jpg", preset: "list", scale: 2))
        try await withService(configuration()) { _, client in
            let answer = try await client.execute(uri: keyedList.path, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok, keyedList.path)
        }
    }

    /// Two key pairs during a rotation: URLs signed by either are served, by neither refused.
    func testEitherKeyOfARotationSigns() async throws {
        let newer = try ThumbnailURLSigner(hexKey: "6e65772d6b6579", hexSalt: "6e65772d73616c74")
        let stranger = try ThumbnailURLSigner(hexKey: "6f74686572", hexSalt: "73616c74")
        var configuration = configuration()
        configuration.keys.append(SigningKey(key: Data(hex: "6e65772d6b6579"), salt: Data(hex: "6e65772d73616c74")))
        let source = "local:///sku-1/IMG_1.jpg"
        let cases = [(signer.signedPath(options: ["w:100"], source: source), HTTPResponse.Status.ok),
                     (newer.signedPath(options: ["w:100"], source: source), .ok),
                     (stranger.signedPath(options: ["w:100"], source: source), .forbidden)]
        try await withService(configuration) { _, client in
            for (uri, status) in cases {
                let answer = try await client.execute(uri: uri, method: .get) { $0 }
                XCTAssertEqual(answer.status, status, uri)
            }
        }
    }

    /// Truncated signatures, as imgproxy's `IMGPROXY_SIGNATURE_SIZE=8`: the first 8 bytes sign; the
    /// full signature is not one of that size.
    func testTruncatedSignatures() async throws {
        var configuration = configuration()
        configuration.signatureSize = 8
        let full = path(["w:100"])
        let signature = full.dropFirst().prefix { $0 != "/" }
        let rest = full.dropFirst(signature.count + 1)
        let truncated = "/" + Self.base64URL(Base64URL.decode(signature)!.prefix(8)) + rest
        let tampered = "/" + Self.base64URL(Data(Base64URL.decode(signature)!.prefix(7)) + Data([0])) + rest
        try await withService(configuration) { _, client in
            let answers = [try await client.execute(uri: truncated, method: .get) { $0.status },
                           try await client.execute(uri: full, method: .get) { $0.status },
                           try await client.execute(uri: tampered, method: .get) { $0.status }]
            XCTAssertEqual(answers, [.ok, .forbidden, .forbidden])
        }
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// One problem per wrong setting, named as its flag (each bad prefix named in the one of
    /// `allow-source`), in the table's order, then the rules between settings.
    func testAWrongConfigurationNamesEachSetting() {
        var configuration = ServiceConfiguration()
        configuration.root = root + "/missing"
        configuration.workers = 0
        configuration.limits.maxOutputEdge = 5
        configuration.allowedSources = ["ftp://example.com/", "http://127.0.0.1/"]
        configuration.presets = ["card": "rs:nope"]
        configuration.bind = ServiceAddress(host: "0.0.0.0", port: 8080)
        let settings = configuration.problems.map(\.setting)
        XCTAssertEqual(settings, ["root", "allow-source", "workers", "max-output-edge", "preset", "insecure-unsigned"])
        configuration.allowUnsigned = true
        XCTAssertEqual(configuration.problems.map(\.setting).filter { $0 == "insecure-unsigned" }, ["insecure-unsigned"], "any URL unsigned, but not on 0.0.0.0")
        XCTAssertTrue(configuration.problems[1].message.contains("ftp://") && configuration.problems[1].message.contains("private address"),
                      configuration.problems[1].message)
        XCTAssertThrowsError(try ThumbnailService(configuration, logger: Logger(label: "test")))
    }
}

extension Data {
    init(hex: String) {
        self.init(stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        })
    }
}

import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ImagePipeline
@testable import ThumbnailService

/// An operator's imgproxy deployment moved over unchanged: its environment file (imgproxy's documented
/// example key and salt, a `default` preset, a path prefix, `local://` and a wildcard in the allowed
/// sources, a metrics namespace, a typo), URLs signed by PyPI's `imgproxy` builder, presets-only URLs
/// in imgproxy's bare grammar, and a dashboard's metric names.
final class ImgproxyMigrationTests: FolderTestCase {
    /// imgproxy's documentation's example key and salt, which PyPI's builder signed the URLs below with.
    private static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    private static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/DSCN0010.jpg", to: "sku-1/small.jpg")
        try copy("photos/DSCN0010.jpg", to: "private/small.jpg")
        try copy("hostile/corrupted.jpg", to: "sku-1/broken.jpg")
    }

    private func environmentFile(_ lines: [String]) throws -> String {
        let path = root + "/imgproxy.env"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func size(_ answer: LoopbackClient.Answer) throws -> [Int] {
        let header = try ImageHeader.read(.data(answer.body))
        return [header.width, header.height]
    }

    func testAnImgproxyEnvironmentFileAndItsURLsWorkUnchanged() async throws {
        let presets = root + "/presets.txt"
        try "# imgproxy's presets file: one a line\nblurry=bl:2\n".write(toFile: presets, atomically: true, encoding: .utf8)
        let file = try environmentFile(["IMGPROXY_PRESETS_PATH=\(presets)",
            "IMGPROXY_KEY=\(Self.key)", "IMGPROXY_SALT=\(Self.salt)", "IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(input)",
            "IMGPROXY_PRESETS=default=rs:fit:300:300/q:85,thumb=rs:fill:100:100", "IMGPROXY_PATH_PREFIX=/img",
            "IMGPROXY_ALLOWED_SOURCES=local:///sku-1/,https://*.example.com/", "IMGPROXY_PROMETHEUS_NAMESPACE=imgproxy",
            "IMGPROXY_QUALTY=70", "IMGPROXY_SENTRY_DSN=https://sentry.example.com/1", "IMGPROXY_USE_S3=false",
        ])
        let service = try await startService(["--config", file], environment: ["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": ""],
                                             secrets: [Self.key, Self.salt])
        let jpeg = ["Accept": "image/jpeg"]
        // PyPI imgproxy 3.0: ImgProxy("local:///sku-1/small.jpg", proxy_host=…/img, key=…, salt=…, width=100, height=100,
        // resizing_type="fill")(), and width=120, resizing_type="fit", extension="png" with "q:70".
        let fill = try await service.get("/img/Ek4gpzzRKHNs3sBzz_hQQWrZDd20Y24RjdB8OZ2286k/g:ce/rs:fill:100:100:0/bG9jYWw6Ly8vc2t1LTEvc21hbGwuanBn", headers: jpeg)
        XCTAssertEqual(fill.status, 200, service.logText)
        XCTAssertEqual(try size(fill), [100, 100])
        let png = try await service.get("/img/FUxW0WU_28ctUvJw1p6c8tPGnkvEn0KgWPYx0IB2hkA/q:70/g:ce/rs:fit:120:0:0/bG9jYWw6Ly8vc2t1LTEvc21hbGwuanBn.png")
        XCTAssertEqual(png.status, 200, service.logText)
        XCTAssertEqual(png.header("Content-Type"), "image/png")
        XCTAssertEqual(try size(png), [120, 90])

        // A URL without options gets the default preset (the 640×480 photo fitted to 300), as imgproxy's.
        let signer = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let bare = try await service.get("/img" + signer.signedPath(options: [], source: "local:///sku-1/small.jpg"), headers: jpeg)
        XCTAssertEqual([bare.status], [200], service.logText)
        XCTAssertEqual(try size(bare), [300, 225], "IMGPROXY_PRESETS' default")
        let q85 = try await service.get("/img" + signer.signedPath(options: ["rs:fit:300:300", "q:85"], source: "local:///sku-1/small.jpg"), headers: jpeg)
        XCTAssertEqual(bare.body, q85.body, "the default preset is its options")

        // The prefix is the URLs' and not the signature's; other paths are 404, /img/health answers.
        let unprefixed = try await service.get(signer.signedPath(options: ["pr:thumb"], source: "local:///sku-1/small.jpg"), headers: jpeg)
        XCTAssertEqual(unprefixed.status, 404)
        let health = try await service.get("/img/health")
        XCTAssertEqual(health.status, 200)
        // local:///sku-1/ allows that folder only.
        let outside = try await service.get("/img" + signer.signedPath(options: ["pr:thumb"], source: "local:///private/small.jpg"), headers: jpeg)
        XCTAssertEqual(outside.status, 404)
        XCTAssertTrue(String(decoding: outside.body, as: UTF8.self).contains("source-not-allowed"))
        let broken = try await service.get("/img" + signer.signedPath(options: ["pr:thumb"], source: "local:///sku-1/broken.jpg"), headers: jpeg)
        XCTAssertEqual(broken.status, 422)
        let missing = try await service.get("/img" + signer.signedPath(options: ["pr:thumb"], source: "local:///sku-1/gone.jpg"), headers: jpeg)
        XCTAssertEqual(missing.status, 404)
        // IMGPROXY_PRESETS and IMGPROXY_PRESETS_PATH together, as imgproxy reads them.
        let blurry = try await service.get("/img" + signer.signedPath(options: ["pr:thumb", "pr:blurry"], source: "local:///sku-1/small.jpg"), headers: jpeg)
        XCTAssertEqual(blurry.status, 200, String(decoding: blurry.body, as: UTF8.self))
        // A signature one segment off the prefix is refused, and not logged whole either.
        let signature = "Ek4gpzzRKHNs3sBzz_hQQWrZDd20Y24RjdB8OZ2286k"
        for misplaced in ["//img/", "/img/../", "/imgX/", "/"] {
            let answer = try await service.get(misplaced + signature + "/g:ce/rs:fill:100:100:0/bG9jYWw6Ly8vc2t1LTEvc21hbGwuanBn", headers: jpeg)
            XCTAssertNotEqual(answer.status, 200, misplaced)
        }

        // The log: a typo named with the setting meant, an unhonoured setting with why; the signature elided.
        let log = service.logText
        XCTAssertTrue(log.contains("warning: IMGPROXY_QUALTY is not one of imgproxy's settings (did you mean IMGPROXY_QUALITY?) and is ignored"), log)
        XCTAssertTrue(log.contains("warning: IMGPROXY_SENTRY_DSN is imgproxy's and is ignored: the service logs one line per request"), log)
        XCTAssertFalse(log.contains("IMGPROXY_USE_S3"), "switched off: what serve does anyway")
        XCTAssertTrue(log.contains("GET /img/…/g:ce/rs:fill:100:100:0/"), log)
        XCTAssertFalse(log.contains(signature), log)

        // A dashboard made for imgproxy finds its series, under its namespace.
        let metrics = try await service.metrics()
        for series in ["imgproxy_requests_total 14", "imgproxy_status_codes_total{status=\"200\"} 6", "imgproxy_status_codes_total{status=\"404\"} 7",
                       "imgproxy_errors_total{type=\"processing\"} 1", "imgproxy_errors_total{type=\"downloading\"} 1", "imgproxy_errors_total{type=\"timeout\"} 0",
                       "imgproxy_request_duration_seconds_count 14",
                       "imgproxy_request_span_duration_seconds_count{span=\"processing\"}", "imgproxy_request_span_duration_seconds_count{span=\"queue\"}",
                       "imgproxy_workers ", "imgproxy_requests_in_progress ", "imgproxy_images_in_progress ", "imgproxy_workers_utilization ",
                       "imgproxy_vips_memory_bytes ", "imgproxy_vips_max_memory_bytes ", "imgproxy_vips_allocs ", "market_images_requests_total{status=\"200\"} 6"] {
            XCTAssertTrue(metrics.contains("\n" + series), "\(series) in\n\(metrics)")
        }
    }

    /// Presets only, no key: imgproxy's bare grammar (`thumb:blurry` as the first segment) and `pr:`
    /// alike, up to three presets; more, or anything but presets, is 400.
    func testPresetsOnlyURLsInImgproxysGrammar() async throws {
        let file = try environmentFile(["IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(input)", "IMGPROXY_ONLY_PRESETS=true",
                                        "IMGPROXY_PRESETS=thumb=rs:fill:100:100,blurry=bl:4,wide=rs:fit:200:100"])
        let service = try await startService(["--config", file], environment: ["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": ""])
        let source = "plain/local:///sku-1/small.jpg"
        let thumb = try await service.get("/insecure/thumb/\(source)@png")
        XCTAssertEqual(thumb.status, 200, service.logText)
        XCTAssertEqual(thumb.header("Content-Type"), "image/png")
        XCTAssertEqual(try size(thumb), [100, 100])
        let blurry = try await service.get("/insecure/thumb:blurry/\(source)@png")
        let spelled = try await service.get("/insecure/pr:thumb:blurry/\(source)@png")
        XCTAssertEqual([blurry.status, spelled.status], [200, 200])
        XCTAssertEqual(blurry.header("ETag"), spelled.header("ETag"), "one output however it is spelled")
        XCTAssertNotEqual(blurry.body, thumb.body)
        let three = try await service.get("/insecure/thumb:blurry:wide/\(source)@png")
        XCTAssertEqual(try size(three), [133, 100], "the later preset wins, as in imgproxy")
        for refused in ["/insecure/thumb:blurry:wide:thumb/\(source)", "/insecure/rs:fill:10:10/\(source)", "/insecure/\(source)",
                        "/insecure/thumb/w:20/\(source)", "/insecure/thumb:nosuch/\(source)"] {
            let answer = try await service.get(refused)
            XCTAssertEqual(answer.status, 400, refused)
        }
    }

    /// What imgproxy refuses or reads at start: one port for images and metrics is refused by name, as
    /// is `local://` without a root, `s3://` without `IMGPROXY_USE_S3`, and a prefix that cannot be a path.
    func testSettingsImgproxyRefusesAreRefusedByName() throws {
        let base = ["IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt, "IMGPROXY_LOCAL_FILESYSTEM_ROOT": input]
        func refusal(_ environment: [String: String]) -> String {
            LiveService.refusal([], environment: base.merging(environment) { $1 }.merging(["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": ""]) { $1 }) ?? "started"
        }
        XCTAssertTrue(refusal(["IMGPROXY_BIND": ":8080", "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:8080"]).contains("is the service's own port"))
        XCTAssertEqual(refusal(["IMGPROXY_BIND": "127.0.0.1:8080", "IMGPROXY_PROMETHEUS_BIND": "127.0.0.2:8080"]), "started")
        XCTAssertTrue(refusal(["IMGPROXY_ALLOWED_SOURCES": "s3://bucket/"]).contains("needs s3:// sources on (--use-s3, IMGPROXY_USE_S3=true)"))
        XCTAssertEqual(refusal(["IMGPROXY_ALLOWED_SOURCES": "s3://bucket/", "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9000"]), "started")
        XCTAssertTrue(refusal(["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "", "IMGPROXY_ALLOWED_SOURCES": "local://"]).contains("needs a folder to serve it from"))
        XCTAssertEqual(refusal(["IMGPROXY_ALLOWED_SOURCES": "local://,https://*.example.com/"]), "started")
        XCTAssertTrue(refusal(["IMGPROXY_PATH_PREFIX": "img/"]).contains("takes a path like /img"))
        XCTAssertTrue(refusal(["IMGPROXY_PROMETHEUS_NAMESPACE": "market_images"]).contains("not market_images"))
        // imgproxy's own example of allowed sources, and its bucket lists, start (what they serve: S3SourceTests);
        // a bucket list's names must be buckets', and need s3 sources on.
        let s3 = ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9000", "IMGPROXY_ALLOWED_SOURCES": "s3://,https://*.example.com/,local://"]
        XCTAssertEqual(refusal(s3.merging(["IMGPROXY_S3_ALLOWED_BUCKETS": "photos, thumbs", "IMGPROXY_S3_DENIED_BUCKETS": "private"]) { $1 }), "started")
        // s3:// alone is every bucket: said at start, unless a bucket list narrows it.
        let every = { (more: [String: String]) in try ServiceSettings(arguments: [], environment: base.merging(s3) { $1 }.merging(more) { $1 }).warnings }
        let wide = try every([:])
        XCTAssertTrue(wide.contains { $0.hasPrefix("--allow-source s3:// allows every bucket the store lets serve read") }, "\(wide)")
        XCTAssertFalse(try every(["IMGPROXY_S3_ALLOWED_BUCKETS": "photos"]).contains { $0.contains("allows every bucket") })
        let badBucket = refusal(s3.merging(["IMGPROXY_S3_DENIED_BUCKETS": "Private_Stuff"]) { $1 })
        XCTAssertTrue(badBucket.hasPrefix("$IMGPROXY_S3_DENIED_BUCKETS: takes bucket names of a-z, 0-9, . and -") && badBucket.contains("\"Private_Stuff\""), badBucket)
        let off = refusal(["IMGPROXY_S3_ALLOWED_BUCKETS": "photos"])
        XCTAssertTrue(off.hasPrefix("$IMGPROXY_S3_ALLOWED_BUCKETS: needs s3:// sources on"), off)
        // imgproxy Pro's result cache is read as --cache, or stops the start: never served without the cache asked for.
        let proCache = ["IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": "thumbs", "IMGPROXY_CACHE_PATH_PREFIX": "/imgproxy/results/",
                        "IMGPROXY_CACHE_S3_ENDPOINT": "http://127.0.0.1:9000", "IMGPROXY_CACHE_S3_REGION": "eu-central-1"]
        let read = try ServiceSettings(arguments: [], environment: base.merging(proCache) { $1 }.merging(["AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s"]) { $1 })
        XCTAssertEqual(read.configuration.cacheFolder, "s3://thumbs/imgproxy/results")
        XCTAssertEqual(read.configuration.s3Endpoint, "http://127.0.0.1:9000")
        XCTAssertEqual(read.configuration.s3Region, "eu-central-1")
        XCTAssertFalse(read.warnings.contains { $0.contains("IMGPROXY_CACHE") }, "\(read.warnings)")
        let folder = try ServiceSettings(arguments: [], environment: base.merging(["IMGPROXY_CACHE_USE": "fs", "IMGPROXY_CACHE_FS_ROOT": input]) { $1 })
        XCTAssertEqual(folder.configuration.cacheFolder, input)
        // imgproxy's S3 in capitals, and one endpoint with and without its closing slash, start.
        let spelt = try ServiceSettings(arguments: [], environment: base.merging(proCache.merging(["IMGPROXY_CACHE_USE": "S3", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9000/",
                                                                                               "IMGPROXY_S3_REGION": "eu-central-1"]) { $1 }) { $1 }
                                            .merging(["AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s"]) { $1 })
        XCTAssertEqual(spelt.configuration.cacheFolder, "s3://thumbs/imgproxy/results")
        for (environment, refused) in [(["IMGPROXY_CACHE_USE": "gcs", "IMGPROXY_CACHE_BUCKET": "thumbs"], "$IMGPROXY_CACHE_USE asks for imgproxy Pro's gcs cache; serve's result cache is a folder or an S3 bucket: give --cache FOLDER or --cache s3://BUCKET/PREFIX"),
                                       (["IMGPROXY_CACHE_USE": "s3"], "$IMGPROXY_CACHE_USE is s3, which needs IMGPROXY_CACHE_BUCKET"),
                                       (["IMGPROXY_CACHE_USE": "fs"], "$IMGPROXY_CACHE_USE is fs, which needs IMGPROXY_CACHE_FS_ROOT"),
                                       (proCache.merging(["IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9001"]) { $1 },
                                        "$IMGPROXY_CACHE_S3_ENDPOINT differs from the s3:// sources' http://127.0.0.1:9001 (IMGPROXY_S3_ENDPOINT): serve reads"),
                                       // Sources on AWS (their names unset) and the cache elsewhere: the cache's names would move the sources.
                                       (proCache.merging(["IMGPROXY_USE_S3": "true"]) { $1 },
                                        "$IMGPROXY_CACHE_S3_ENDPOINT differs from the s3:// sources' AWS's endpoint (IMGPROXY_S3_ENDPOINT)"),
                                       (["IMGPROXY_USE_S3": "true", "AWS_REGION": "eu-west-2", "IMGPROXY_CACHE_S3_REGION": "eu-west-1"],
                                        "$IMGPROXY_CACHE_S3_REGION differs from the s3:// sources' eu-west-2 (IMGPROXY_S3_REGION)")] {
            let answer = refusal(environment)
            XCTAssertTrue(answer.hasPrefix(refused), answer)
        }
        XCTAssertTrue(refusal(["MARKET_IMAGES_BIND": "localhost:8080", "MARKET_IMAGES_METRICS_BIND": "127.0.0.1:8080"]).contains("is the service's own port"))
        // imgproxy's `:PORT`, every interface, under either name.
        let everyInterface = try ServiceSettings(arguments: ["--bind", ":8080", "--metrics-bind", "127.0.0.1:9090"],
                                                 environment: base.merging(["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": ""]) { $1 })
        XCTAssertEqual(everyInterface.configuration.bind, ServiceAddress(host: "0.0.0.0", port: 8080))
        // A prefix ending inside a name allows its neighbours too: said at start.
        let partial = try ServiceSettings(arguments: ["--bind", "127.0.0.1:0"], environment: base.merging(["IMGPROXY_ALLOWED_SOURCES": "local:///sku,https://cdn.example.com/img/"]) { $1 })
        XCTAssertEqual(partial.warnings.filter { $0.contains("allows every name that begins so") }.count, 1, "\(partial.warnings)")
    }

    /// A port another process holds (a second instance left at the first's ports) is named with its
    /// setting and what to do, not the socket call's words.
    func testAPortInUseIsNamedWithItsSetting() async throws {
        let first = try await startService(["--root", input, "--insecure-unsigned"])
        let port = try XCTUnwrap(first.base.port)
        let second = try await LiveService(["--root", input, "--insecure-unsigned", "--bind", "127.0.0.1:\(port)", "--metrics-bind", "off"])
        XCTAssertFalse(second.isListening)
        XCTAssertTrue(second.logText.contains("error: cannot listen on 127.0.0.1:\(port) (--bind): the port is in use by another process"), second.logText)
        let metricsPort = try XCTUnwrap(first.metricsBase?.port)
        let third = try await LiveService(["--root", input, "--insecure-unsigned", "--metrics-bind", "127.0.0.1:\(metricsPort)"])
        XCTAssertTrue(third.logText.contains("error: cannot listen on 127.0.0.1:\(metricsPort) (--metrics-bind): the port is in use"), third.logText)
        await third.waitForExit()
    }

    /// `*` matches within one label or segment: scheme and port exact, never across a `.` or `/`, and
    /// never the trick imgproxy's text match lets through.
    func testWildcardsMatchWithinOneLabelOrSegment() throws {
        func allowed(_ url: String, by prefix: String) throws -> Bool {
            let prefix = try XCTUnwrap(SourceURL(prefix: prefix))
            return SourceURL(url).map { $0.isUnder(prefix) } ?? false
        }
        let cases: [(String, String, Bool)] = [
            ("https://cdn.example.com/a.jpg", "https://*.example.com/", true),
            ("https://img-7.example.com/a.jpg", "https://img-*.example.com/", true),
            ("https://a.b.example.com/a.jpg", "https://*.example.com/", false),
            ("https://example.com/a.jpg", "https://*.example.com/", false),
            ("https://evil.test?.example.com/a.jpg", "https://*.example.com/", false),
            ("https://evil.test#.example.com/a.jpg", "https://*.example.com/", false),
            ("http://cdn.example.com/a.jpg", "https://*.example.com/", false),
            ("https://cdn.example.com:8443/a.jpg", "https://*.example.com/", false),
            ("https://cdn.example.com/shop-1/img/a.jpg", "https://cdn.example.com/*/img/", true),
            ("https://cdn.example.com/shop-1/x/img/a.jpg", "https://cdn.example.com/*/img/", false),
            ("https://cdn.example.com/shop-1/img-2/a.jpg", "https://cdn.example.com/shop-*/img", true),
            ("https://.example.com/a.jpg", "https://*.example.com/", false),
            ("HTTPS://CDN.example.com/a.jpg", "https://*.example.com/", true),
        ]
        for (url, prefix, expected) in cases {
            XCTAssertEqual(try allowed(url, by: prefix), expected, "\(url) under \(prefix)")
        }
    }
}

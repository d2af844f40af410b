import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ImagePipeline
@testable import ThumbnailService

/// `s3://bucket/key` sources from a real S3 server on loopback (`MotoServer`), put there by
/// botocore as any S3 client would: served from allowed buckets only, a missing object 404 like a
/// missing file, keys that cannot leave their bucket, and the key's secret nowhere in the log.
final class S3SourceTests: XCTestCase {
    private var moto: MotoServer!
    private let jpeg = try! Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/DSCN0010.jpg")))
    private var credentials: [String: String] { ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey] }

    /// moto with the test's buckets, for the tests that need it; stopped at the test's end.
    private func startMoto(checksSignatures: Bool = true) throws {
        let moto = try MotoServer(buckets: ["photos", "private-stuff", "thumbs"], checksSignatures: checksSignatures)
        addTeardownBlock { moto.stop() }
        self.moto = moto
    }

    private func path(_ source: String) -> String {
        "/insecure" + ThumbnailURLSigner.path(options: ["w:120"], source: source)
    }

    private func start(_ arguments: [String], environment: [String: String]? = nil) async throws -> LiveService {
        try await startService(["--root", try temporaryFolder(self), "--insecure-unsigned", "--use-s3", "--s3-endpoint", moto.endpoint,
                                "--s3-region", "us-east-1"] + arguments,
                               environment: environment ?? credentials, secrets: [moto.secretAccessKey])
    }

    func testObjectsAreServedFromAllowedBucketsOnly() async throws {
        // moto cannot check signatures of some of these keys (`MotoServer`); a wrong key is the next test's.
        try startMoto(checksSignatures: false)
        let keys = ["sku-1/IMG 1.jpg", "odd/a?b#c%d+e&f=g.jpg", "dots/..a/b..jpg", "empty//segment.jpg"]
        try moto.put(Dictionary(uniqueKeysWithValues: (keys + ["x.jpg?versionId=1"]).map { ($0, jpeg) }), bucket: "photos")
        try moto.put(["secret.jpg": jpeg], bucket: "private-stuff")
        let service = try await start(["--allow-source", "s3://photos/", "--cache", try temporaryFolder(self)])
        for key in keys {
            let answer = try await service.get(path("s3://photos/" + key))
            XCTAssertEqual(answer.status, 200, "\(key): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            XCTAssertEqual(try ImageHeader.read(.data(answer.body)).width, 120, key)
        }
        let refused: [(String, Int, String)] = [
            ("s3://photos/missing.jpg", 404, "source-not-found"),
            ("s3://private-stuff/secret.jpg", 404, "source-not-allowed"),
            ("s3://photos/../private-stuff/secret.jpg", 404, "source-not-found"),
            ("s3://photos/./x/../../private-stuff/secret.jpg", 404, "source-not-found"),
            ("s3://photos/x.jpg", 404, "source-not-found"),
            ("s3://photos", 404, "source-not-found"),
            ("s3://PHOTOS/sku-1/IMG 1.jpg", 404, "source-not-found"),
            ("s3://photos/" + String(repeating: "k", count: 1025), 404, "the key is 1025 bytes long; S3's keys are 1024 at most"),
        ]
        for (source, status, error) in refused {
            let answer = try await service.get(path(source))
            XCTAssertEqual(answer.status, status, source)
            XCTAssertTrue(String(decoding: answer.body, as: UTF8.self).contains(error), "\(source): \(String(decoding: answer.body, as: UTF8.self))")
        }
        // The query a key holds is part of the key, never the request's: this one is its own object.
        let versioned = try await service.get(path("s3://photos/x.jpg?versionId=1"))
        XCTAssertEqual(versioned.status, 200)
        // A second size of the same object costs no second read: its record is fresh.
        let second = try await service.get("/insecure" + ThumbnailURLSigner.path(options: ["w:60"], source: "s3://photos/" + keys[0]))
        XCTAssertEqual(try ImageHeader.read(.data(second.body)).width, 60)
        let metrics = try await service.metrics()
        XCTAssertTrue(metrics.contains("market_images_source_bytes_total{kind=\"s3\"} \(jpeg.count * (keys.count + 1))"), metrics)
        XCTAssertTrue(metrics.contains("read from a bucket (kind s3)"), "the HELP names every kind: \(metrics)")
    }

    /// imgproxy's env file as its docs write it: `s3://` alone among the allowed sources is every
    /// bucket, `IMGPROXY_S3_ALLOWED_BUCKETS` and `_DENIED_BUCKETS` narrow it by name, and imgproxy Pro's
    /// `IMGPROXY_CACHE_USE=s3` is the bucket cache under its path prefix. These stopped the start, or
    /// were dropped with the cache they asked for.
    func testImgproxysBucketSettingsAreReadAsImgproxyReadsThem() async throws {
        try startMoto()
        try moto.put(["a.jpg": jpeg], bucket: "photos")
        try moto.put(["secret.jpg": jpeg], bucket: "private-stuff")
        let environment = credentials.merging([
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": try temporaryFolder(self), "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": moto.endpoint,
            "IMGPROXY_S3_REGION": "us-east-1", "IMGPROXY_ALLOWED_SOURCES": "s3://,https://*.example.com/,local://",
            "IMGPROXY_S3_ALLOWED_BUCKETS": "photos,private-stuff", "IMGPROXY_S3_DENIED_BUCKETS": "private-stuff",
            "IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": "thumbs", "IMGPROXY_CACHE_PATH_PREFIX": "imgproxy/",
        ]) { $1 }
        let service = try await startService(["--insecure-unsigned"], environment: environment, secrets: [moto.secretAccessKey])
        XCTAssertFalse(service.logText.contains("IMGPROXY_CACHE"), "nothing of the cache is dropped: \(service.logText)")
        let served = try await service.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(served.status, 200, String(decoding: served.body.prefix(300), as: UTF8.self))
        let cached = try moto.keys(in: "thumbs")
        XCTAssertTrue(!cached.isEmpty && cached.allSatisfy { $0.hasPrefix("imgproxy/") }, "the output is in imgproxy's cache bucket, under its prefix: \(cached)")
        for source in ["s3://private-stuff/secret.jpg", "s3://thumbs/anything.jpg"] {
            let refused = try await service.get(path(source))
            XCTAssertEqual(refused.status, 404, source)
            XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("source-not-allowed"), source)
        }
    }

    /// With a bucket cache, sources' records are shared too: an instance that never fetched a source
    /// serves another's output of it without downloading it, and downloads it only to render a
    /// size of its own (what the bucket holds then, though the object was replaced since the record
    /// was made); one whose record is past `--source-ttl` revalidates it with S3's conditional GET
    /// (a 304, no bytes) rather than downloading it again.
    func testAnInstanceServesTheFleetsOutputsOfASourceWithoutDownloadingIt() async throws {
        try startMoto()
        try moto.put(["a.jpg": jpeg], bucket: "photos")
        let arguments = ["--allow-source", "s3://photos/", "--cache", "s3://thumbs/out"]
        let first = try await start(arguments)
        let rendered = try await first.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(rendered.status, 200)
        let second = try await start(arguments)
        let hit = try await second.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(hit.status, 200)
        var metrics = try await second.metrics()
        XCTAssertTrue(metrics.contains("market_images_cache_total{outcome=\"remote-hit\"} 1"), metrics)
        XCTAssertFalse(metrics.contains("market_images_source_bytes_total{kind=\"s3\"}"), "no download for a hit: \(metrics)")
        let size = try await second.get("/insecure" + ThumbnailURLSigner.path(options: ["w:60"], source: "s3://photos/a.jpg"))
        XCTAssertEqual(try ImageHeader.read(.data(size.body)).width, 60)
        metrics = try await second.metrics()
        XCTAssertTrue(metrics.contains("market_images_source_bytes_total{kind=\"s3\"} \(jpeg.count)"), "one download to render: \(metrics)")
        // That read is timed like any (it went untimed: the lookup had found a fresh record), and the
        // process's own figures are there for memory and CPU panels.
        XCTAssertTrue(metrics.contains("request_span_duration_seconds_count{span=\"downloading\"} 1"), metrics)
        for figure in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_max_fds", "process_start_time_seconds"] {
            let value = metrics.split(separator: "\n").first { $0.hasPrefix(figure + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            XCTAssertGreaterThan(value ?? 0, 0, "\(figure): \(metrics)")
        }

        let third = try await start(arguments + ["--source-ttl", "0"])
        let revalidated = try await third.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(revalidated.status, 200)
        metrics = try await third.metrics()
        XCTAssertTrue(metrics.contains("market_images_sources_total{outcome=\"revalidated\"} 1"), metrics)
        XCTAssertFalse(metrics.contains("market_images_source_bytes_total{kind=\"s3\"}"), "a 304, no bytes: \(metrics)")

        // Replaced since the record was made: a new size renders what the bucket holds now.
        let replacement = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg")))
        try moto.put(["a.jpg": replacement], bucket: "photos")
        let replaced = try await second.get("/insecure" + ThumbnailURLSigner.path(options: ["w:80"], source: "s3://photos/a.jpg"))
        XCTAssertEqual(replaced.status, 200, String(decoding: replaced.body.prefix(300), as: UTF8.self))
        XCTAssertEqual(try ImageHeader.read(.data(replaced.body)).width, 80)
    }

    /// The store's failures have an origin's statuses: a wrong secret (moto checks signatures)
    /// 502, a bucket that is not there 502 too (a configuration mistake, never a missing image), the
    /// store down 502; no answer or log line says more than that, nor shows the secret.
    func testAStoreThatFailsIsAnOriginThatFails() async throws {
        try startMoto()
        try moto.put(["a.jpg": jpeg], bucket: "photos")
        let wrongSecret = "wrong/secret+key"
        let wrong = try await startService(["--root", try temporaryFolder(self), "--insecure-unsigned", "--use-s3", "--s3-endpoint", moto.endpoint,
                                            "--s3-region", "us-east-1", "--allow-source", "s3://photos/"],
                                           environment: ["AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": wrongSecret], secrets: [wrongSecret])
        let refused = try await wrong.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(refused.status, 502, String(decoding: refused.body, as: UTF8.self))
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("answered 403"), String(decoding: refused.body, as: UTF8.self))
        let service = try await start(["--allow-source", "s3://photos/", "--allow-source", "s3://no-such-bucket/"])
        let gone = try await service.get(path("s3://no-such-bucket/a.jpg"))
        XCTAssertEqual(gone.status, 502, String(decoding: gone.body, as: UTF8.self))
        moto.stop()
        let down = try await service.get(path("s3://photos/a.jpg"))
        XCTAssertEqual(down.status, 502, String(decoding: down.body, as: UTF8.self))
        XCTAssertFalse(service.logText.contains("Signature="), service.logText)
    }

    /// At start: an s3:// prefix needs s3 sources on, a bucket's name must be one, and a key
    /// without its secret is named (with where it came from), the secret never shown.
    func testSettingsAreCheckedAtStart() throws {
        let folder = try temporaryFolder(self)
        let base = ["--root", folder, "--insecure-unsigned"]
        let off = LiveService.refusal(base + ["--allow-source", "s3://photos/"], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
        XCTAssertTrue(off.contains("--use-s3"), off)
        let bad = LiveService.refusal(base + ["--use-s3", "--allow-source", "s3://Bad_Bucket/"], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
        XCTAssertTrue(bad.contains("s3://BUCKET/"), bad)
        let half = LiveService.refusal(base + ["--use-s3", "--allow-source", "s3://photos/"],
                                       environment: ["MARKET_IMAGES_KEY": "", "AWS_SECRET_ACCESS_KEY": "very/secret", "AWS_ACCESS_KEY_ID": ""]) ?? "started"
        XCTAssertTrue(half.contains("$AWS_SECRET_ACCESS_KEY is set without AWS_ACCESS_KEY_ID"), half)
        XCTAssertFalse(half.contains("very/secret"), half)
        let cache = LiveService.refusal(base + ["--cache", "s3://thumbs/out"],
                                        environment: ["MARKET_IMAGES_KEY": "", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": folder]) ?? "started"
        XCTAssertTrue(cache.contains("needs credentials"), cache)
        // A * only in the bucket's name, where it matches; in the key's part, like ? and #, it could only match itself.
        for prefix in ["s3://photos/d*/", "s3://photos/?", "s3://photos/a#b/"] {
            let refused = LiveService.refusal(base + ["--use-s3", "--allow-source", prefix], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
            XCTAssertTrue(refused.contains("(a * in it matches within one .-separated part, s3://photos-*/), then the beginning of keys as written (no *, ? or #"), refused)
        }
        XCTAssertNil(LiveService.refusal(base + ["--use-s3", "--allow-source", "s3://photos-*/"], environment: ["MARKET_IMAGES_KEY": ""]))
        // Virtual hosts need a host name to put the bucket before.
        let endpoint = base + ["--use-s3", "--allow-source", "s3://photos/", "--no-s3-path-style", "--s3-endpoint"]
        for address in ["http://127.0.0.1:9000", "http://[::1]:9000"] {
            let refused = LiveService.refusal(endpoint + [address], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
            XCTAssertTrue(refused.hasPrefix("--s3-path-style: off asks for BUCKET.HOST/KEY, and the host of --s3-endpoint \(address) is an IP address"), refused)
        }
        XCTAssertNil(LiveService.refusal(endpoint + ["http://minio.internal:9000"], environment: ["MARKET_IMAGES_KEY": ""]))
    }

    /// s3:// sources without credentials start (a public bucket needs none) but say so, naming where
    /// credentials were looked for and never a secret; the region comes from AWS_REGION, then
    /// AWS_DEFAULT_REGION, when no setting gives it, as imgproxy's AWS SDK reads them.
    func testMissingCredentialsAreSaidAndTheRegionFollowsAWSVariables() throws {
        let folder = try temporaryFolder(self)
        let arguments = ["--root", folder, "--insecure-unsigned", "--use-s3", "--allow-source", "s3://photos/"]
        let none = try ServiceSettings(arguments: arguments, environment: ["HOME": folder])
        XCTAssertEqual(none.warnings.filter { $0.contains("no AWS credentials found") && $0.contains("there is no \(folder)/.aws/credentials") }.count, 1,
                       "\(none.warnings)")
        try FileManager.default.createDirectory(atPath: folder + "/.aws", withIntermediateDirectories: true)
        try "[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = very/secret\n".write(toFile: folder + "/.aws/credentials", atomically: true, encoding: .utf8)
        let profile = try ServiceSettings(arguments: arguments, environment: ["HOME": folder, "AWS_PROFILE": "prod"])
        XCTAssertTrue(profile.warnings.contains { $0.contains("\(folder)/.aws/credentials has no profile [prod] (AWS_PROFILE)") }, "\(profile.warnings)")
        XCTAssertFalse(profile.warnings.joined().contains("very/secret"))
        let found = try ServiceSettings(arguments: arguments, environment: ["HOME": folder])
        XCTAssertEqual(found.configuration.s3Credentials?.accessKeyID, "AKIDEXAMPLE")
        XCTAssertFalse(found.warnings.contains { $0.contains("AWS credentials") }, "\(found.warnings)")

        func region(_ environment: [String: String]) throws -> String {
            try ServiceSettings(arguments: arguments, environment: environment.merging(["HOME": folder]) { $1 }).configuration.s3Region
        }
        XCTAssertEqual(try region([:]), "us-west-1")
        XCTAssertEqual(try region(["AWS_DEFAULT_REGION": "eu-west-1"]), "eu-west-1")
        XCTAssertEqual(try region(["AWS_DEFAULT_REGION": "eu-west-1", "AWS_REGION": "eu-central-1"]), "eu-central-1")
        XCTAssertEqual(try region(["AWS_REGION": "eu-central-1", "IMGPROXY_S3_REGION": "ap-south-1"]), "ap-south-1")
        XCTAssertEqual(try region(["IMGPROXY_S3_REGION": "ap-south-1", "MARKET_IMAGES_S3_REGION": "sa-east-1"]), "sa-east-1")
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ThumbnailService
import ImagePipeline

/// The image side of the thumbnail service: sources under a root and nowhere else, the format a
/// client gets, ETags that change exactly when the bytes would, and one processing per output
/// however many ask at once.
final class OutputPlannerTests: FolderTestCase {
    func testLocalSourcesResolveInsideTheRootOnly() throws {
        try copy("photos/DSCN0010.jpg", to: "sku 1/a.jpg")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/outside.txt"))
        try FileManager.default.createSymbolicLink(atPath: input + "/escape.jpg", withDestinationPath: root + "/outside.txt")
        try FileManager.default.createSymbolicLink(atPath: input + "/inside.jpg", withDestinationPath: input + "/sku 1/a.jpg")
        let sources = try LocalSourceRoot(input)
        let photo = try Data(contentsOf: URL(fileURLWithPath: input + "/sku 1/a.jpg"))
        XCTAssertEqual(try sources.file(named: "local:///sku 1/a.jpg")?.file.read(), photo)
        XCTAssertEqual(try sources.file(named: "local:///inside.jpg")?.file.read(), photo, "a link that stays inside is fine")
        // One name per file, however the URL reaches it: the ETag and the caches key on it.
        try FileManager.default.createSymbolicLink(atPath: input + "/latest", withDestinationPath: input + "/sku 1")
        for spelling in ["local:///sku 1/a.jpg", "local:///inside.jpg", "local:///latest/a.jpg", "local:///sku 1//a.jpg"] {
            XCTAssertEqual(sources.file(named: spelling)?.name, "local:///sku 1/a.jpg", spelling)
        }
        // Served from `/`, whose prefix is `/`, not `//`.
        let real = try XCTUnwrap(FileStatus.realPath(input))
        XCTAssertEqual(try LocalSourceRoot("/").file(named: "local://" + real + "/inside.jpg")?.name, "local://" + real + "/sku 1/a.jpg")
        for refused in ["local:///../outside.txt", "local:///sku 1/../../outside.txt", "local:///escape.jpg", "local://" + root + "/outside.txt",
                        "local:///sku 1", "local:///sku 1/a.jpg\u{0}.png", "local:///missing.jpg", "local:sku 1/a.jpg", "file:///etc/passwd",
                        "local:///./sku 1/a.jpg", "local:///", "local:///sku 1/a.jpg/"] {
            XCTAssertNil(sources.file(named: refused), refused)
        }
        XCTAssertThrowsError(try LocalSourceRoot(root + "/outside.txt"))
    }

    /// Every setting whose value changes an output's bytes (`ServiceSetting.output`) is in the ETag of
    /// a URL that leaves the choice to the service, and no other: instances sharing a cache (one with
    /// `--fast-decode`, say) never serve each other's bytes under one tag, and a setting that changes
    /// no byte (the workers) keeps every tag.
    /// Every stored limit is reached by some setting, so a new one fails here until the table has it.
    func testEverySettingThatChangesBytesIsInTheETag() throws {
        let samples: [String: String] = [
            "root": "/x", "allow-source": "https://a.example/", "allow-private-sources": "true", "max-source-bytes": "1000",
            "download-timeout": "7", "max-downloads": "3", "max-downloads-per-origin": "1", "source-ttl": "5", "source-stale-if-error": "5",
            "source-cache-size": "1000", "fallback-image": "/x.jpg", "fallback-status": "200", "fallback-max-age": "5", "watermark": "/w.png",
            "watermark-opacity": "0.5", "bind": "127.0.0.1:1", "insecure-unsigned": "true", "only-presets": "true", "preset-dprs": "1,2",
            "signature-size": "8", "cache": "/c", "cache-size": "5", "memory-cache": "5", "workers": "3", "queue": "3", "max-output-edge": "1024",
            "max-pixels": "1000", "max-animation-frames": "50", "max-animation-frame-resolution": "1000", "max-render-memory": "67108864",
            "render-memory": "67108864", "render-timeout": "1", "quality": "70", "format-quality": "avif=50", "auto-quality": "ssimulacra2:80",
            "auto-quality-max-resolution": "0", "allow-security-options": "true", "fast-decode": "true", "baseline-jpeg": "true",
            "avif-effort": "4", "auto-avif": "true", "jxl-effort": "7", "auto-jxl": "true", "preferred-formats": "png,jpeg", "preset": "x=q:50", "max-age": "5", "grace": "5",
            "idle-timeout": "5", "max-connections": "5", "metrics-bind": "off", "path-prefix": "/img", "metrics-namespace": "imgproxy",
            "use-s3": "true", "s3-allowed-bucket": "photos", "s3-denied-bucket": "private", "s3-endpoint": "http://127.0.0.1:9000", "s3-region": "eu-central-1",
            "s3-path-style": "false", "cache-timeout": "3",
        ]
        let resolvedElsewhere: Set<String> = ["config", "key", "salt", "key-file"]
        XCTAssertEqual(Set(ServiceSetting.all.map(\.name)).subtracting(resolvedElsewhere), Set(samples.keys), "a sample value for every setting")
        func tags(_ configuration: ServiceConfiguration) -> [String] {
            let planner = OutputPlanner(configuration)
            return OutputFormat.allCases.map {
                planner.etag(source: "local:///a.jpg", fingerprint: "f", options: planner.applyingDefaults(to: ProcessingOptions()), format: $0)
            }
        }
        func fields(_ limits: RenderLimits) -> [String: String] {
            Dictionary(uniqueKeysWithValues: Mirror(reflecting: limits).children.map { ($0.label ?? "", "\($0.value)") })
        }
        let base = ServiceConfiguration()
        var reached: Set<String> = []
        for setting in ServiceSetting.all where !resolvedElsewhere.contains(setting.name) {
            var changed = base
            try setting.apply(&changed, try XCTUnwrap(samples[setting.name]))
            XCTAssertNotEqual(setting.text(changed), setting.defaultText, "\(setting.name): the sample is not the default")
            XCTAssertEqual(tags(changed) != tags(base), setting.output != .none, setting.name)
            reached.formUnion(fields(changed.limits).filter { fields(base.limits)[$0.key] != $0.value }.keys)
        }
        XCTAssertEqual(reached, Set(fields(base.limits).keys), "every limit is some setting's")
    }

    /// A source as the format choice sees it.
    private func source(_ format: OutputFormat?, alpha: Bool = false, animated: Bool = false) -> () -> SourceTraits {
        { SourceTraits(format: format, hasAlpha: alpha, animated: animated) }
    }

    func testTheFormatFollowsTheURLThenAcceptThenTheSource() {
        let planner = OutputPlanner()
        var options = ProcessingOptions()
        let jpeg = source(.jpeg)
        XCTAssertEqual(planner.format(for: options, accept: "image/avif,image/webp,*/*", source: jpeg).format, .webp)
        XCTAssertEqual(planner.format(for: options, accept: "image/webp;q=0, image/jpeg", source: jpeg).format, .jpeg)
        for refusal in ["image/webp ; q = 0", "image/webp;Q=0.000", "image/webp; level=1; q=0", "IMAGE/WEBP;q=0"] {
            XCTAssertEqual(planner.format(for: options, accept: refusal + ", image/jpeg", source: jpeg).format, .jpeg, refusal)
        }
        XCTAssertEqual(planner.format(for: options, accept: "image/webp ; q = 0.5", source: jpeg).format, .webp)
        var configuration = ServiceConfiguration()
        (configuration.limits.autoJXL, configuration.limits.autoAVIF) = (true, true)
        let both = OutputPlanner(configuration)
        XCTAssertEqual(both.format(for: options, accept: "image/webp,image/avif,image/jxl", source: jpeg).format, .jxl, "JPEG XL first")
        XCTAssertEqual(both.format(for: options, accept: "image/jxl;q=0,image/avif", source: jpeg).format, .avif)
        XCTAssertEqual(planner.format(for: options, accept: "image/jxl,image/webp", source: jpeg).format, .webp, "only with autoJXL")
        XCTAssertEqual(planner.format(for: options, accept: nil, source: source(nil, alpha: true)).format, .png)
        options.maxBytes = 20_000
        XCTAssertEqual(planner.format(for: options, accept: nil, source: source(.png, alpha: true)).format, .jpeg, "a budget needs a quality to lower")
        options.maxBytes = nil
        options.autoquality = .init(maxBytes: 20_000, qualities: 70...80)
        XCTAssertEqual(planner.format(for: options, accept: nil, source: source(.png, alpha: true)).format, .jpeg, "so does aq:size")
        options.format = .png
        let unasked = { () -> SourceTraits in
            XCTFail("the source is asked only when neither the URL nor Accept chose")
            return SourceTraits(format: .jpeg, hasAlpha: false, animated: false)
        }
        XCTAssertEqual(planner.format(for: options, accept: "image/webp", source: unasked).format, .png)
        XCTAssertFalse(planner.format(for: options, accept: "image/webp", source: unasked).negotiated)
        options.format = nil
        XCTAssertEqual(planner.format(for: options, accept: "image/webp", source: unasked).format, .webp)
    }

    /// imgproxy's preferred-formats rule, for clients whose `Accept` chooses nothing: the source's
    /// own format when preferred and it fits, else the first preferred that keeps its transparency
    /// and animation; a byte budget takes only formats with a quality.
    func testWithoutAChoiceTheSourceKeepsItsFormatByThePreferredFormats() {
        let planner = OutputPlanner()
        var options = ProcessingOptions()
        func format(_ source: @escaping () -> SourceTraits, _ planner: OutputPlanner = planner) -> OutputFormat {
            planner.format(for: options, accept: "image/*", source: source).format
        }
        XCTAssertEqual(format(source(.png)), .png, "an opaque PNG stays PNG")
        XCTAssertEqual(format(source(.gif)), .gif)
        XCTAssertEqual(format(source(.gif, animated: true)), .gif, "a GIF stays GIF, as a still with one frame kept")
        XCTAssertEqual(format(source(.webp)), .jpeg, "WebP is not preferred")
        XCTAssertEqual(format(source(.webp, alpha: true)), .png, "the first preferred with transparency")
        XCTAssertEqual(format(source(.webp, animated: true)), .jpeg, "one frame kept: a still")
        XCTAssertEqual(format(source(nil)), .jpeg, "a HEIC is not written")
        var configuration = ServiceConfiguration()
        configuration.limits.maxAnimationFrames = 10
        let animating = OutputPlanner(configuration)
        XCTAssertEqual(format(source(.webp, animated: true), animating), .gif, "the first preferred that animates")
        XCTAssertEqual(format(source(.webp, alpha: true, animated: true), animating), .gif)
        options.limits.animationFrames = 1
        XCTAssertEqual(format(source(.webp, animated: true), animating), .jpeg, "maf:1 keeps one frame")
        options.limits.animationFrames = nil
        options.maxBytes = 20_000
        XCTAssertEqual(format(source(.gif, animated: true), animating), .jpeg, "a budget: no GIF")
        XCTAssertEqual(format(source(.png)), .jpeg, "a budget: no PNG")
        configuration.limits.preferredFormats = [.png, .webp]
        XCTAssertEqual(format(source(.png), OutputPlanner(configuration)), .webp, "the first preferred with a quality")
        configuration.limits.preferredFormats = [.png]
        XCTAssertEqual(format(source(.png), OutputPlanner(configuration)), .jpeg, "none preferred has a quality: JPEG")
        options.maxBytes = nil
        configuration.limits.preferredFormats = [.avif, .png]
        XCTAssertEqual(format(source(.avif), OutputPlanner(configuration)), .avif)
        XCTAssertEqual(format(source(.jpeg), OutputPlanner(configuration)), .avif, "the first preferred")
        XCTAssertEqual(format(source(.jpeg, animated: true), OutputPlanner(configuration)), .avif, "none animates: the first")
    }

    /// Twenty identical requests at once: one processing, twenty identical answers. The work waits
    /// on a gate until all twenty have joined it.
    func testSingleFlightRunsTheWorkOnce() async throws {
        let flight = SingleFlight<Int>()
        let gate = Gate()
        let results = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await flight.run("same") { await gate.wait(); return 42 } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await flight.waitUntil(20, waitingFor: "same")
        await gate.open()
        let answered = try await results.value
        XCTAssertEqual(answered, Array(repeating: 42, count: 20))
        let started = await flight.started
        XCTAssertEqual(started, 1)
        _ = try await flight.run("same") { 7 }
        let after = await flight.started
        XCTAssertEqual(after, 2, "a later request, after the flight landed, runs again")
    }

    /// A caller that goes away stops waiting at once; the work goes on for those still waiting, and
    /// is cancelled once nobody is.
    func testACallerLeavingDoesNotCancelTheWorkForOthers() async throws {
        let flight = SingleFlight<Int>()
        let gate = Gate()
        let leaving = Task { try await flight.run("k") { await gate.wait(); return 1 } }
        try await flight.waitUntil(1, waitingFor: "k")
        let staying = Task { try await flight.run("k") { 2 } }
        try await flight.waitUntil(2, waitingFor: "k")
        leaving.cancel()
        do {
            _ = try await leaving.value
            XCTFail("the caller that left must not wait for the result")
        } catch {}
        await gate.open()
        let value = try await staying.value
        XCTAssertEqual(value, 1, "the one left waiting gets the shared result")

        let cancelled = Gate()
        let alone = Task {
            try await flight.run("j") {
                try await withTaskCancellationHandler { try await Task.sleep(for: .seconds(60)) } onCancel: { Task { await cancelled.open() } }
                return 3
            }
        }
        try await flight.waitUntil(1, waitingFor: "j")
        alone.cancel()
        _ = try? await alone.value
        await cancelled.wait()    // the work itself was cancelled once nobody waited for it
    }
}

private extension SingleFlight {
    /// Returns once `count` callers wait on `key`: orders the test by the flight's own state, and
    /// fails with what it waited for after 10 s.
    func waitUntil(_ count: Int, waitingFor key: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await TestSupport.waitUntil("\(count) callers waiting for \(key)", file: file, line: line) { await self.waiting(for: key) >= count }
    }
}

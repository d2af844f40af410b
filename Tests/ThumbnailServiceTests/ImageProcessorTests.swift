import Foundation
import TestSupport
import XCTest
@testable import ThumbnailService
import ImagePipeline

/// The image side of the thumbnail service: sources under a root and nowhere else, the format a
/// client gets, ETags that change exactly when the bytes would, and one processing per output
/// however many ask at once.
final class ImageProcessorTests: FolderTestCase {
    func testLocalSourcesResolveInsideTheRootOnly() throws {
        try copy("photos/DSCN0010.jpg", to: "sku 1/a.jpg")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/outside.txt"))
        try FileManager.default.createSymbolicLink(atPath: input + "/escape.jpg", withDestinationPath: root + "/outside.txt")
        try FileManager.default.createSymbolicLink(atPath: input + "/inside.jpg", withDestinationPath: input + "/sku 1/a.jpg")
        let sources = try LocalSourceRoot(input)
        let photo = try Data(contentsOf: URL(fileURLWithPath: input + "/sku 1/a.jpg"))
        XCTAssertEqual(try sources.file(named: "local:///sku 1/a.jpg")?.file.read(), photo)
        XCTAssertEqual(try sources.file(named: "local:///inside.jpg")?.file.read(), photo, "a link that stays inside is fine")
        for refused in ["local:///../outside.txt", "local:///sku 1/../../outside.txt", "local:///escape.jpg", "local://" + root + "/outside.txt",
                        "local:///sku 1", "local:///sku 1/a.jpg\u{0}.png", "local:///missing.jpg", "local:sku 1/a.jpg", "file:///etc/passwd",
                        "local:///./sku 1/a.jpg", "local:///"] {
            XCTAssertNil(sources.file(named: refused), refused)
        }
        XCTAssertThrowsError(try LocalSourceRoot(root + "/outside.txt"))
    }

    /// Every setting of the service's that changes an output's bytes is in its ETag, so instances
    /// sharing a cache (one with `--fast-decode`, say) never serve each other's bytes under one tag.
    /// Every stored setting is listed here, so a new one fails until it is classified.
    func testEverySettingThatChangesBytesIsInTheETag() {
        typealias Change = (name: String, apply: (inout ImageProcessor.Limits) -> Void, changesBytes: Bool)
        let changes: [Change] = [
            ("defaultQuality", { $0.defaultQuality = 70 }, true),
            ("formatQuality", { $0.formatQuality[.avif] = 50 }, true),
            ("maxOutputEdge", { $0.maxOutputEdge = 1024 }, true),
            ("draftDecode", { $0.draftDecode = true }, true),
            ("maxAnimationFrames", { $0.maxAnimationFrames = 50 }, true),
            // Applied to the options (`applyingDefaults`), so in their canonical part of the tag.
            ("autoQuality", { $0.autoQuality = .init(score: 80, qualities: 30...95) }, false),
            // In the tag of URLs with a perceptual aq only (below).
            ("autoQualityMaxPixels", { $0.autoQualityMaxPixels = nil }, false),
            ("maxAnimationFramePixels", { $0.maxAnimationFramePixels = 1000 }, false),
            ("encoder.progressive", { $0.encoder.progressive = false }, true),
            ("encoder.avifEffort", { $0.encoder.avifEffort = 4 }, true),
            ("encoder.jxlEffort", { $0.encoder.jxlEffort = 7 }, true),
            // These decide what is refused, or which format is chosen (the format is in the tag).
            ("maxPixels", { $0.maxPixels = 1000 }, false),
            ("maxRenderMemory", { $0.maxRenderMemory = 64 << 20 }, false),
            ("renderTimeout", { $0.renderTimeout = .seconds(1) }, false),
            ("autoAVIF", { $0.autoAVIF = true }, false),
            ("autoJXL", { $0.autoJXL = true }, false),
        ]
        let base = ImageProcessor.Limits()
        let stored = Mirror(reflecting: base).children.compactMap(\.label).filter { $0 != "encoder" }
            + Mirror(reflecting: base.encoder).children.compactMap(\.label).map { "encoder." + $0 }
        XCTAssertEqual(Set(stored), Set(changes.map(\.name)), "classify every setting here")
        func tags(_ limits: ImageProcessor.Limits) -> [String] {
            OutputFormat.allCases.map { ImageProcessor(limits: limits).etag(source: "local:///a.jpg", fingerprint: "f", options: ProcessingOptions(), format: $0) }
        }
        for change in changes {
            var limits = base
            change.apply(&limits)
            XCTAssertEqual(tags(limits) != tags(base), change.changesBytes, change.name)
        }
        var scored = ProcessingOptions(), unlimited = base
        scored.autoquality = .init(score: 80, qualities: 30...95)
        unlimited.autoQualityMaxPixels = nil
        XCTAssertNotEqual(ImageProcessor(limits: unlimited).etag(source: "local:///a.jpg", fingerprint: "f", options: scored, format: .jpeg),
                          ImageProcessor(limits: base).etag(source: "local:///a.jpg", fingerprint: "f", options: scored, format: .jpeg),
                          "the scoring limit changes which outputs are scored")
    }

    func testTheFormatFollowsTheURLThenAcceptThenTransparency() {
        let processor = ImageProcessor()
        var options = ProcessingOptions()
        XCTAssertEqual(processor.format(for: options, accept: "image/avif,image/webp,*/*", sourceHasAlpha: false).format, .webp)
        XCTAssertEqual(processor.format(for: options, accept: "image/webp;q=0, image/jpeg", sourceHasAlpha: false).format, .jpeg)
        for refusal in ["image/webp ; q = 0", "image/webp;Q=0.000", "image/webp; level=1; q=0", "IMAGE/WEBP;q=0"] {
            XCTAssertEqual(processor.format(for: options, accept: refusal + ", image/jpeg", sourceHasAlpha: false).format, .jpeg, refusal)
        }
        XCTAssertEqual(processor.format(for: options, accept: "image/webp ; q = 0.5", sourceHasAlpha: false).format, .webp)
        var limits = ImageProcessor.Limits()
        (limits.autoJXL, limits.autoAVIF) = (true, true)
        let both = ImageProcessor(limits: limits)
        XCTAssertEqual(both.format(for: options, accept: "image/webp,image/avif,image/jxl", sourceHasAlpha: false).format, .jxl, "JPEG XL first")
        XCTAssertEqual(both.format(for: options, accept: "image/jxl;q=0,image/avif", sourceHasAlpha: false).format, .avif)
        XCTAssertEqual(processor.format(for: options, accept: "image/jxl,image/webp", sourceHasAlpha: false).format, .webp, "only with autoJXL")
        XCTAssertEqual(processor.format(for: options, accept: nil, sourceHasAlpha: true).format, .png)
        options.maxBytes = 20_000
        XCTAssertEqual(processor.format(for: options, accept: nil, sourceHasAlpha: true).format, .jpeg, "a budget needs a quality to lower")
        options.maxBytes = nil
        options.autoquality = .init(maxBytes: 20_000, qualities: 70...80)
        XCTAssertEqual(processor.format(for: options, accept: nil, sourceHasAlpha: true).format, .jpeg, "so does aq:size")
        options.format = .png
        XCTAssertEqual(processor.format(for: options, accept: "image/webp", sourceHasAlpha: false).format, .png)
        XCTAssertFalse(processor.format(for: options, accept: "image/webp", sourceHasAlpha: false).negotiated)
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

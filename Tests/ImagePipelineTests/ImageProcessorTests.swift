import Foundation
import XCTest
@testable import ImagePipeline

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
        XCTAssertEqual(try sources.resolve("local:///sku 1/a.jpg")?.file.read(), photo)
        XCTAssertEqual(try sources.resolve("local:///inside.jpg")?.file.read(), photo, "a link that stays inside is fine")
        for refused in ["local:///../outside.txt", "local:///sku 1/../../outside.txt", "local:///escape.jpg", "local://" + root + "/outside.txt",
                        "local:///sku 1", "local:///sku 1/a.jpg\u{0}.png", "local:///missing.jpg", "local:sku 1/a.jpg", "file:///etc/passwd",
                        "local:///./sku 1/a.jpg", "local:///"] {
            XCTAssertNil(sources.resolve(refused), refused)
        }
        XCTAssertThrowsError(try LocalSourceRoot(root + "/outside.txt"))
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
        XCTAssertEqual(processor.format(for: options, accept: nil, sourceHasAlpha: true).format, .png)
        options.maxBytes = 20_000
        XCTAssertEqual(processor.format(for: options, accept: nil, sourceHasAlpha: true).format, .jpeg, "a budget needs a quality to lower")
        options.format = .png
        XCTAssertEqual(processor.format(for: options, accept: "image/webp", sourceHasAlpha: false).format, .png)
        XCTAssertFalse(processor.format(for: options, accept: "image/webp", sourceHasAlpha: false).negotiated)
    }

    func testProcessingARequestGivesTheSizeFormatAndAStableETag() throws {
        let processor = ImageProcessor()
        let request = try ImageRequestPath.parse("/pr:list/dpr:3/plain/local:///a.jpg")
        let source = ImageSource.file(Fixture.path("photos/jolla.jpg"))
        let webp = try processor.process(request, source: source, fingerprint: "1-2", accept: "image/webp")
        XCTAssertEqual([webp.image.width, webp.image.height, webp.image.format == .webp ? 1 : 0], [240, 240, 1])
        XCTAssertTrue(webp.negotiated)
        let again = try processor.process(request, source: source, fingerprint: "1-2", accept: "image/webp")
        XCTAssertEqual(again.etag, webp.etag)
        XCTAssertEqual(again.image.data, webp.image.data, "the same request gives the same bytes")
        let jpeg = try processor.process(request, source: source, fingerprint: "1-2", accept: nil)
        XCTAssertNotEqual(jpeg.etag, webp.etag, "another format, another tag")
        XCTAssertNotEqual(try processor.process(request, source: source, fingerprint: "1-3", accept: nil).etag, jpeg.etag,
                          "a changed source, another tag")
        XCTAssertEqual(processor.etag(source: request.source, fingerprint: "1-2", options: request.options, format: .jpeg), jpeg.etag,
                       "known before any work, for If-None-Match")

        let budget = try ImageRequestPath.parse("/rs:fit:1500:1500/mb:30000/plain/local:///a.jpg")
        XCTAssertLessThanOrEqual(try processor.process(budget, source: source, fingerprint: "x", accept: nil).image.byteCount, 30_000)
        let huge = try ImageRequestPath.parse("/rs:fill:5000:5000/plain/local:///a.jpg")
        XCTAssertThrowsError(try processor.process(huge, source: source, fingerprint: "x", accept: nil)) { error in
            guard case .request? = error as? ImageProcessingFailure else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try processor.process(request, source: .data(Data("<html>".utf8)), fingerprint: "x", accept: nil)) { error in
            XCTAssertEqual(error as? ImageProcessingFailure, .image(.unsupportedFormat))
        }
    }

    /// Twenty identical requests at once: one processing, twenty identical answers.
    func testSingleFlightRunsTheWorkOnce() async throws {
        let flight = SingleFlight<Int>()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await flight.run("same") {
                        try await Task.sleep(nanoseconds: 100_000_000)
                        return 42
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: 42, count: 20))
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
        let leaving = Task { try await flight.run("k") { try await Task.sleep(nanoseconds: 300_000_000); return 1 } }
        try await Task.sleep(nanoseconds: 50_000_000)
        let staying = Task { try await flight.run("k") { 2 } }
        try await Task.sleep(nanoseconds: 50_000_000)
        leaving.cancel()
        do {
            _ = try await leaving.value
            XCTFail("the caller that left must not wait for the result")
        } catch {}
        let value = try await staying.value
        XCTAssertEqual(value, 1, "the one left waiting gets the shared result")

        let alone = Task { try await flight.run("j") { try await Task.sleep(nanoseconds: 5_000_000_000); return 3 } }
        try await Task.sleep(nanoseconds: 50_000_000)
        let clock = ContinuousClock.now
        alone.cancel()
        _ = try? await alone.value
        XCTAssertLessThan(ContinuousClock.now - clock, .seconds(1))
    }
}

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

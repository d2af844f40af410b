import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// A render on the pool is stopped where it is, not after it: at its deadline, or when the caller
/// goes away. Real renders of files that take seconds: a progressive JPEG (our own decode, which
/// takes in every scan before its first row) and a noise PNG written as PNG (libvips' decode and
/// encode). Each is timed whole once, and stopped in a small part of that.
final class RenderStopTests: FolderTestCase {
    private func slowSources() throws -> [(name: String, source: ImageSource, spec: RenderSpec)] {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", """
            import sys
            from PIL import Image, ImageFile
            ImageFile.MAXBLOCK = 1 << 26
            size = (3000, 3000)
            noise = Image.merge("RGB", [Image.effect_noise(size, 80) for _ in range(3)])
            noise.save(sys.argv[1] + "/progressive.jpg", progressive=True, subsampling=0, quality=95)
            """, input])
        try GeneratedImage.noise(width: 2000, height: 2000, to: input + "/noise.png")
        return [("progressive JPEG", .file(input + "/progressive.jpg"), RenderSpec(width: 256, height: 256)),
                ("noise PNG", .file(input + "/noise.png"), RenderSpec(width: 4000, height: 4000, resizing: .fit, enlarge: true, format: .png))]
    }

    private static func render(_ pool: ImageWorkPool, _ source: ImageSource, _ spec: RenderSpec, timeout: Duration? = nil,
                        started: Gate? = nil) async throws(ImagePipelineError) -> EncodedImage {
        try await pool.run(timeout: timeout) { () throws(ImagePipelineError) in
            if let started { Task { await started.open() } }
            return try ImageRenderer(spec: spec).render(source, maxPixels: 100_000_000)
        }
    }

    private static func start(_ pool: ImageWorkPool, _ source: ImageSource, _ spec: RenderSpec, started: Gate) -> Task<EncodedImage, any Error> {
        Task { try await render(pool, source, spec, started: started) }
    }

    /// `stopped()` (a render made to stop) fails with `expected` within `bound`, and the worker
    /// renders the next image.
    private func assertStopped(_ name: String, pool: ImageWorkPool, source: ImageSource, within bound: Duration,
                               expecting expected: ImagePipelineError, _ stopped: () async throws -> EncodedImage) async throws {
        let clock = ContinuousClock(), start = clock.now
        do {
            _ = try await stopped()
            XCTFail("\(name): a stopped render finished")
        } catch {
            XCTAssertEqual(error as? ImagePipelineError, expected, name)
        }
        let took = clock.now - start
        XCTAssertLessThan(took, bound, "\(name): stopped after \(took)")
        let next = try await Self.render(pool, source, RenderSpec(width: 64, height: 64))
        XCTAssertEqual(max(next.width, next.height), 64, "\(name): the worker renders the next image")
    }

    /// Each slow source, timed whole once: stopped at its deadline, and when its caller left; then
    /// the pool stopped under it. One test, so the sources are made and timed once.
    func testARenderIsStoppedAtItsDeadlineOrWhenItsCallerLeftOrThePoolStops() async throws {
        let pool = ImageWorkPool(workers: 1)
        let sources = try slowSources()
        var wholes: [Duration] = []
        for (name, source, spec) in sources {
            let whole = try await ContinuousClock().measure { _ = try await Self.render(pool, source, spec) }
            wholes.append(whole)
            let limit = whole / 20
            try await assertStopped("\(name) at its deadline, \(whole) whole", pool: pool, source: source, within: whole / 4,
                                    expecting: .timedOut(limit: limit)) {
                try await Self.render(pool, source, spec, timeout: limit)
            }
            try await assertStopped("\(name) whose caller left, \(whole) whole", pool: pool, source: source, within: whole / 2,
                                    expecting: .cancelled) {
                let started = Gate()
                let task = Self.start(pool, source, spec, started: started)
                await started.wait()
                task.cancel()
                return try await task.value
            }
        }
        try await checkStoppingThePoolStopsTheRunningRenderAndDropsTheQueued(pool, sources[1], whole: wholes[1])
    }

    /// A service about to exit stops everything on the pool and waits for its worker: the running
    /// render stopped, the queued one dropped, both told so, in a small part of the render's time.
    private func checkStoppingThePoolStopsTheRunningRenderAndDropsTheQueued(_ pool: ImageWorkPool, _ slow: (name: String, source: ImageSource, spec: RenderSpec),
                                                                           whole: Duration) async throws {
        let (source, spec) = (slow.source, slow.spec)
        let clock = ContinuousClock()
        let started = Gate()
        let running = Self.start(pool, source, spec, started: started)
        await started.wait()
        let queued = Self.start(pool, source, spec, started: Gate())
        try await waitUntil("the second render to queue") { pool.queued == 1 }
        let stopping = clock.now
        await pool.stopAll(within: .seconds(30))
        let took = clock.now - stopping
        XCTAssertEqual(pool.running, 0)
        XCTAssertLessThan(took, whole / 2, "stopped in \(took) of a \(whole) render")
        for task in [running, queued] {
            do {
                _ = try await task.value
                XCTFail("a render finished after the pool was stopped")
            } catch {
                XCTAssertEqual(error as? ImagePipelineError, .cancelled)
            }
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import TestSupport
import XCTest
@testable import ThumbnailService

/// `aq:ssimulacra2` and `--auto-quality` through the service: the quality chosen for a score, said
/// in `X-Quality` and the access log, kept with the cached output, part of the ETag, capped by `mb`.
final class PerceptualQualityTests: ServiceTestCase {
    func testAScoreTargetChoosesTheQualityAndSaysSo() async throws {
        let target80 = path(["rs:fill:240:240", "aq:ssimulacra2:80", "f:jpg"]), target70 = path(["rs:fill:240:240", "aq:ssimulacra2:70", "f:jpg"])
        let capped = path(["rs:fill:240:240", "aq:ssimulacra2:95", "mb:4000", "f:jpg"]), fixed = path(["rs:fill:240:240", "q:80", "f:jpg"])
        var configuration = configuration()
        configuration.cacheFolder = root + "/cache"
        let log = LogLines()
        try await withService(configuration, log: log) { _, client in
            let first = try await client.execute(uri: target80, method: .get) { $0 }
            XCTAssertEqual(first.status, .ok)
            let quality = try XCTUnwrap(first.headers[HTTPAnswer.quality])
            let parts = quality.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertTrue(parts.first?.hasPrefix("q=") ?? false, quality)
            XCTAssertGreaterThanOrEqual(Double(parts.last?.dropFirst("ssimulacra2=".count) ?? "") ?? 0, 80, quality)
            let hit = try await client.execute(uri: target80, method: .get) { $0 }
            XCTAssertEqual(hit.headers[HTTPAnswer.quality], quality, "kept with the cached output")
            let lower = try await client.execute(uri: target70, method: .get) { $0 }
            XCTAssertNotEqual(lower.headers[.eTag], first.headers[.eTag], "the target is part of the ETag")
            XCTAssertLessThan(lower.body.readableBytes, first.body.readableBytes, "a lower target, fewer bytes")
            let budget = try await client.execute(uri: capped, method: .get) { $0 }
            XCTAssertLessThanOrEqual(budget.body.readableBytes, 4000, "mb still caps")
            let plain = try await client.execute(uri: fixed, method: .get) { $0 }
            XCTAssertNil(plain.headers[HTTPAnswer.quality], "a fixed quality says nothing")
        }
        XCTAssertTrue(log.all.contains { $0.contains("cache=miss quality=q=") && $0.contains(",ssimulacra2=") }, "\(log.all)")
    }

    /// `--auto-quality` gives URLs that choose no quality the service's target; a URL's own `q` or
    /// `aq` wins, and the target is in the ETag of the URLs it applies to.
    func testTheServicesTargetAppliesWhereAURLChoosesNone() async throws {
        let plain = path(["rs:fill:240:240", "f:jpg"]), own = path(["rs:fill:240:240", "q:60", "f:jpg"])
        let (plainTags, ownTags) = (Locked<[String]>([]), Locked<[String]>([]))
        for autoQuality in [nil, ProcessingOptions.Autoquality(score: 85, qualities: 30...95)] {
            var configuration = configuration()
            configuration.limits.autoQuality = autoQuality
            try await withService(configuration) { _, client in
                let chosen = try await client.execute(uri: plain, method: .get) { $0 }
                XCTAssertEqual(chosen.headers[HTTPAnswer.quality] != nil, autoQuality != nil)
                let mine = try await client.execute(uri: own, method: .get) { $0 }
                XCTAssertNil(mine.headers[HTTPAnswer.quality], "q:60 is the URL's choice")
                plainTags.withLock { $0.append(chosen.headers[.eTag] ?? "") }
                ownTags.withLock { $0.append(mine.headers[.eTag] ?? "") }
            }
        }
        XCTAssertNotEqual(plainTags.withLock { $0[0] }, plainTags.withLock { $0[1] })
        XCTAssertEqual(ownTags.withLock { $0[0] }, ownTags.withLock { $0[1] })
    }

    /// `aq:ssimulacra2` is admitted by what it holds: on a 4096² noise JPEG, a 3600² scored output is
    /// 413 from its estimate before any work (it held 1.36 GB before the estimate counted scoring);
    /// with the default scoring limit (1 MP) the same URL is rendered unscored at its fallback
    /// quality; and a scored 1000² render's peak memory (the process's VmHWM, reset before it) stays
    /// under its estimate.
    func testAPerceptualSearchIsAdmittedByWhatItHolds() async throws {
        let noise = input + "/sku-1/noise.jpg"
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", """
            import numpy, sys
            from PIL import Image
            Image.fromarray(numpy.random.default_rng(7).integers(0, 256, (4096, 4096, 3), dtype=numpy.uint8)).save(sys.argv[1], quality=90)
            """, noise])
        let large = path(["rs:fit:3600:3600", "f:jpg", "aq:ssimulacra2:99:90:100:0"], source: "local:///sku-1/noise.jpg")
        let scored = path(["rs:fit:1000:1000", "f:jpg", "aq:ssimulacra2:99:90:100:0"], source: "local:///sku-1/noise.jpg")
        var unlimited = configuration()
        (unlimited.limits.autoQualityMaxPixels, unlimited.limits.renderTimeout) = (nil, nil)
        let header = try ImageHeader.read(file: noise)
        let estimate = DecodeCost.bytes(header: header, box: (1000, 1000), outputPixels: 1_000_000, scoredPixels: 1_000_000)
        let before = Locked(0)
        try await withService(unlimited) { _, client in
            let refused = try await client.execute(uri: large, method: .get) { $0 }
            XCTAssertEqual(refused.status, .contentTooLarge)
            XCTAssertTrue(String(buffer: refused.body).contains("too-costly"), String(buffer: refused.body))
            let resident = try Self.residentMemory(resettingPeak: true).current
            before.withLock { $0 = resident }
            let answer = try await client.execute(uri: scored, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok)
            XCTAssertNotNil(answer.headers[HTTPAnswer.quality], "scored")
        }
        let (resident, held) = (before.withLock { $0 }, try Self.residentMemory(resettingPeak: false).peak - before.withLock { $0 })
        print("aq 1000² on a 4096² noise JPEG: peak \(held >> 20) MB over \(resident >> 20) MB, estimate \(estimate >> 20) MB")
        XCTAssertLessThanOrEqual(held, estimate, "the render held no more than its estimate")
        try await withService(configuration()) { _, client in
            let answer = try await client.execute(uri: large, method: .get) { $0 }
            XCTAssertEqual(answer.status, .ok, "too large to score: rendered at its fallback quality")
            XCTAssertNil(answer.headers[HTTPAnswer.quality], "unscored")
            XCTAssertEqual(try ImageHeader.read(.data(Data(buffer: answer.body))).width, 3600)
        }
    }

    /// This process's resident memory now and at its peak (`VmRSS`, `VmHWM`), after resetting the
    /// peak to now when asked (`clear_refs` 5, Linux 4.0 and later).
    private static func residentMemory(resettingPeak: Bool) throws -> (current: Int, peak: Int) {
        if resettingPeak { try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func kilobytes(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return (kilobytes("VmRSS"), kilobytes("VmHWM"))
    }
}

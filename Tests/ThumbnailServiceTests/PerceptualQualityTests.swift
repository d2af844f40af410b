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
}

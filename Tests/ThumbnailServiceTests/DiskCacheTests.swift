import Foundation
import TestSupport
import XCTest
@testable import ThumbnailService
import ImagePipeline

/// The service's disk cache: what is served from it is exactly what was stored, damage is caught
/// and regenerated rather than served, the size stays bounded by recency, and it survives restarts
/// and sharing.
final class DiskCacheTests: XCTestCase {
    private func entry(_ seed: UInt8, bytes: Int = 10_000) -> DiskCache.Entry {
        DiskCache.Entry(format: .webp, width: 240, height: 240, data: Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }))
    }

    private func files(in folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") && $0.split(separator: "/").count == 3 }
    }

    func testWhatIsStoredIsWhatIsLoadedAcrossRestarts() throws {
        let folder = try temporaryFolder(self)
        let cache = try DiskCache(folder: folder, sizeLimit: 1_000_000)
        XCTAssertNil(cache.load(key: "a"))
        try cache.store(entry(1), key: "a")
        XCTAssertEqual(cache.load(key: "a"), entry(1))
        let restarted = try DiskCache(folder: folder, sizeLimit: 1_000_000)
        XCTAssertEqual(restarted.load(key: "a"), entry(1))
        XCTAssertNil(restarted.load(key: "b"))
    }

    /// Truncated, overwritten with junk, or a byte flipped: a miss, and the file is gone.
    func testDamagedFilesAreNeverServed() throws {
        let damages: [(String, (Data) -> Data)] = [
            ("truncated", { $0.prefix($0.count - 100) }),
            ("junk", { _ in Data("<html>not an image</html>".utf8) }),
            ("flipped", { var data = $0; data[data.count - 10] ^= 0xFF; return data }),
            ("empty", { _ in Data() }),
        ]
        for (name, damage) in damages {
            let folder = try temporaryFolder(self)
            let cache = try DiskCache(folder: folder, sizeLimit: 1_000_000)
            try cache.store(entry(2), key: name)
            let stored = try files(in: folder)
            XCTAssertEqual(stored.count, 1)
            let path = folder + "/" + stored[0]
            try damage(try Data(contentsOf: URL(fileURLWithPath: path))).write(to: URL(fileURLWithPath: path))
            XCTAssertNil(cache.load(key: name), name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(name): the damaged file is removed")
            try cache.store(entry(2), key: name)
            XCTAssertEqual(cache.load(key: name), entry(2), "\(name): regenerated")
        }
    }

    /// Past its limit the cache drops the least recently used, down to 90%; a recent hit survives.
    func testEvictionKeepsTheSizeBoundedAndTheRecentEntries() throws {
        let folder = try temporaryFolder(self)
        // A clock that moves a second per reading: each store and hit is strictly later than the last.
        let ticks = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        let cache = try DiskCache(folder: folder, sizeLimit: 100_000) { ticks.withLock { $0 += 1; return $0 } }
        for index in 0..<8 { try cache.store(entry(UInt8(index)), key: "k\(index)") }
        XCTAssertNotNil(cache.load(key: "k0"), "k0 is now the most recently used")
        for index in 8..<20 {
            try cache.store(entry(UInt8(index)), key: "k\(index)")
            XCTAssertLessThanOrEqual(cache.size, 100_000)
        }
        XCTAssertNotNil(cache.load(key: "k19"))
        XCTAssertNil(cache.load(key: "k1"), "the stalest went first")
        XCTAssertGreaterThan(cache.size, 50_000, "eviction stops at 90%, not at empty")
        XCTAssertEqual(cache.evictions, 20 - (try files(in: folder).count), "every file gone was counted")
    }

    /// Two caches on one folder (two servers), storing and loading the same keys from several
    /// threads: every load is a complete entry or a miss, never a torn one.
    func testTwoProcessesSharingAFolderNeverSeeATornFile() throws {
        let folder = try temporaryFolder(self)
        let caches = [try DiskCache(folder: folder, sizeLimit: 400_000), try DiskCache(folder: folder, sizeLimit: 400_000)]
        let expected = (0..<16).map { entry(UInt8($0), bytes: 20_000 + $0) }
        let failures = LockedCount()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let cache = caches[worker % 2]
            for round in 0..<60 {
                let key = (worker * 7 + round) % 16
                if round % 3 == 0 {
                    try? cache.store(expected[key], key: "k\(key)")
                } else if let loaded = cache.load(key: "k\(key)"), loaded != expected[key] {
                    failures.add()
                }
            }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertLessThanOrEqual(caches[0].size, 400_000)
    }
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

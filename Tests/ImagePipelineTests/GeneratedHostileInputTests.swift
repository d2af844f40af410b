import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Damaged, forged and absurd files, each prepared alone in a run of its own: every file must end in
/// either a correct image or a per-file error that says what is wrong, within a time and memory bound.
/// (In process, a crash takes the test run with it and a hang stalls it: both show.)
final class GeneratedHostileInputTests: XCTestCase {
    static let timeLimit: TimeInterval = 60
    /// What one photo may add to the process's memory at its peak.
    static let memoryLimit = 400 << 20

    enum Outcome: Equatable {
        case image(width: Int, height: Int)
        case refused(String)
    }

    /// Prepares one file alone and checks the bounds every outcome must respect.
    func outcome(of file: String, line: UInt = #line) throws -> Outcome? {
        let out = try temporaryFolder(self)
        let name = (file as NSString).lastPathComponent
        var job = FolderJob(inputs: [file], outputFolder: out)
        job.jobs = 1
        let started = Date()
        let (run, growth) = peakMemoryGrowth { Result { () throws(ImagePipelineError) in try FolderProcessor(job: job).run() } }
        XCTAssertLessThan(Date().timeIntervalSince(started), Self.timeLimit, "\(name) took over \(Self.timeLimit) s", line: line)
        XCTAssertLessThan(growth ?? 0, Self.memoryLimit, "\(name) peak memory", line: line)
        guard case .success(let report) = run else {
            XCTFail("\(name): no report: \(run)", line: line)
            return nil
        }
        if let written = report.written.first {
            XCTAssertTrue(report.succeeded, "\(report.failed)", line: line)
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/" + written.output))
            XCTAssertLessThanOrEqual(data.count, PrepareOptions().maxBytes, line: line)
            XCTAssertEqual(ContainerMetadata.kinds(in: data), [], "\(name)", line: line)
            XCTAssertEqual(try Exiftool.metadata(in: [out + "/" + written.output]).values.first, [], "\(name)", line: line)
            let back = try readBack(data, in: out)
            XCTAssertEqual([back.header.width, back.header.height], [written.width, written.height], line: line)
            return .image(width: written.width, height: written.height)
        }
        XCTAssertFalse(report.succeeded, line: line)
        let failure = try XCTUnwrap(report.failed.first, "\(name): neither written nor failed", line: line)
        XCTAssertEqual((failure.source as NSString).lastPathComponent, name, "the error names the file", line: line)
        let remainingFiles = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { !$0.hasPrefix(".") && $0 != "manifest.json" }
        XCTAssertEqual(remainingFiles ?? [], [], "no partial output for \(name)", line: line)
        return .refused(failure.error)
    }

    private func write(_ bytes: [UInt8], _ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A photo cut off anywhere (an interrupted copy or download) is refused, never half grey.
    func testTruncatedPhotosAtTenRandomOffsets() throws {
        let folder = try temporaryFolder(self)
        var generator = SeededGenerator(seed: 0x7E57_C0DE)
        for fixture in ["photos/jolla.jpg", "photos/iphone_13_pro_max.HEIC", "alpha/alpha-layer-1-fill.png"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(fixture))))
            let offsets = (0..<10).map { _ in Int.random(in: 1..<bytes.count, using: &generator) }.sorted()
            for offset in offsets {
                let name = "cut-\(offset)-" + (fixture as NSString).lastPathComponent
                let file = try write(Array(bytes[..<offset]), name, in: folder)
                guard case .refused(let reason)? = try outcome(of: file) else {
                    XCTFail("\(name): a truncated photo must be refused"); continue
                }
                XCTAssertTrue(reason.contains("damaged or truncated") || reason.contains("not a supported image"), "\(name): \(reason)")
            }
        }
    }

    /// Random bytes behind the magic number of every format a loader might claim them for.
    func testRandomBytesBehindMagicNumbers() throws {
        let folder = try temporaryFolder(self)
        var generator = SeededGenerator(seed: 0xBAD_F00D)
        let magics: [(String, [UInt8])] = [
            ("jpg", [0xFF, 0xD8, 0xFF, 0xE0]), ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            ("gif", Array("GIF89a".utf8)), ("webp", Array("RIFF\u{0}\u{10}\u{0}\u{0}WEBPVP8 ".utf8)),
            ("heic", [0, 0, 0, 0x18] + Array("ftypheic\u{0}\u{0}\u{0}\u{0}mif1heic".utf8)),
            ("avif", [0, 0, 0, 0x1C] + Array("ftypavif\u{0}\u{0}\u{0}\u{0}avifmif1miaf".utf8)),
            ("tif", Array("II*\u{0}".utf8)), ("tiff", Array("MM\u{0}*".utf8)), ("bmp", Array("BM".utf8)),
            ("svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"".utf8)), ("pdf", Array("%PDF-1.7\n".utf8)),
        ]
        for (ext, magic) in magics {
            for length in [16, 4096] {
                let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let file = try write(magic + noise, "noise-\(length).\(ext)", in: folder)
                guard case .refused? = try outcome(of: file) else { XCTFail("\(file) must be refused"); continue }
            }
        }
    }

    /// Formats only libvips' unsafe loaders read (ImageMagick's BMP, librsvg's SVG) are refused as
    /// unsupported, before any of their code runs on the file.
    func testFormatsOfUntrustedLoadersAreRefused() throws {
        let folder = try temporaryFolder(self)
        let bmp = [UInt8]("BM".utf8) + [70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 24, 0]
            + [UInt8](repeating: 0, count: 24) + [UInt8](repeating: 0xFF, count: 16)
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        for (name, bytes, loader) in [("real.bmp", bmp, "magickload"), ("real.svg", svg, "svgload")] {
            guard case .refused(let reason)? = try outcome(of: try write(bytes, name, in: folder)) else { XCTFail(name); continue }
            XCTAssertTrue(reason.contains("not a supported image") && reason.contains("\(loader) is blocked"), reason)
        }
    }

    /// The crafted files of `Fixtures/crafted` (see its make.py): bombs, slivers, empty headers,
    /// thousands of frames, malformed EXIF.
    func testCraftedFiles() throws {
        let refused: [String: String] = [
            "png-bomb-20000.png": "refused before decoding",
            "zero-size.png": "damaged or truncated",
            "zero-size.jpg": "damaged or truncated",
        ]
        let images: [String: [Outcome]] = [
            "png-bomb-16000.png": [.image(width: 2048, height: 2048)],
            "strip-1x20000.png": [.image(width: 1, height: 2048)],
            "strip-20000x1.png": [.image(width: 2048, height: 1)],
            "zero-size.gif": [.image(width: 1, height: 1)],
            "gif-3000-frames.gif": [.image(width: 64, height: 4)],
            // libexif may or may not believe an orientation found in a broken IFD; either is a correct image.
            "exif-huge-count.jpg": [.image(width: 600, height: 450), .image(width: 450, height: 600)],
            "exif-loop.jpg": [.image(width: 600, height: 450), .image(width: 450, height: 600)],
            "exif-offsets-out-of-range.jpg": [.image(width: 600, height: 450), .image(width: 450, height: 600)],
        ]
        for (name, reason) in refused {
            guard case .refused(let error)? = try outcome(of: Fixture.path("crafted/" + name)) else { XCTFail(name); continue }
            XCTAssertTrue(error.contains(reason), "\(name): \(error)")
            XCTAssertFalse(error.contains("()"), "no empty detail: \(error)")
        }
        for (name, expected) in images {
            guard let outcome = try outcome(of: Fixture.path("crafted/" + name)) else { continue }
            XCTAssertTrue(expected.contains(outcome), "\(name): \(outcome)")
        }
    }

    /// Inputs `scripts/fuzz` found (see `Fixtures/fuzz/README.md`), replayed for good.
    func testFuzzerFindingsStayHarmless() throws {
        let folder = Fixture.path("fuzz")
        let findings = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".md") }.sorted()
        XCTAssertFalse(findings.isEmpty)
        for name in findings {
            XCTAssertNotNil(try outcome(of: folder + "/" + name), name)
        }
    }

    /// Slivers and postage stamps encode, since the server takes them, but the seller is told.
    func testOddShapesAreWarnedAbout() throws {
        let out = try temporaryFolder(self)
        let sliver = Fixture.path("crafted/strip-1x20000.png"), stamp = Fixture.path("crafted/gif-3000-frames.gif")
        let report = try FolderProcessor(job: FolderJob(inputs: [sliver, stamp], outputFolder: out)).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        XCTAssertEqual(report.written.count, 2)
        XCTAssertTrue(report.warnings.contains { $0.hasPrefix(sliver + ": 1×2048 is 2048:1, beyond the 3:1") }, "\(report.warnings)")
        XCTAssertTrue(report.warnings.contains { $0.hasPrefix(stamp + ": only 64×4 pixels") }, "\(report.warnings)")
    }

    /// One folder holding every kind of bad file: each is named with its reason, the good photo is
    /// still prepared, and the run says something failed.
    func testAFolderFullOfBadFilesStillPreparesTheGoodOne() throws {
        let root = try temporaryFolder(self)
        let input = root + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let bad = ["hostile/empty.jpg", "hostile/not-an-image.jpg", "hostile/corrupt-header.jpg", "hostile/corrupted.jpg",
                   "hostile/65536-uint32-limit.png", "crafted/zero-size.jpg", "crafted/png-bomb-20000.png"]
        for fixture in bad + ["photos/flowers.jpeg"] {
            try FileManager.default.copyItem(atPath: Fixture.path(fixture), toPath: input + "/" + (fixture as NSString).lastPathComponent)
        }
        let report = try FolderProcessor(job: FolderJob(inputs: [input], outputFolder: root + "/out")).run()
        XCTAssertFalse(report.succeeded)
        XCTAssertEqual(report.written.map(\.output), ["in/flowers.jpg"])
        XCTAssertEqual(Set(report.failed.map { ($0.source as NSString).lastPathComponent }),
                       Set(bad.map { ($0 as NSString).lastPathComponent }))
        for failure in report.failed {
            let cause = try XCTUnwrap(failure.cause, failure.source)
            XCTAssertEqual(failure.error, cause.description, "\(failure.source) is named with its reason")
        }
        XCTAssertEqual(Manifest.load(from: root + "/out")?.failures.map(\.error).sorted(), report.failed.map(\.error).sorted(), "and recorded with it")
    }
}

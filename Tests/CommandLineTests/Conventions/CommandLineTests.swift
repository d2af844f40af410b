import Foundation
import MarketUploader
import TestSupport
import ThumbnailService
import XCTest
@testable import ImagePipeline

/// The `market-images` executable as a user runs it: exit codes, streams, JSON, help.
final class CommandLineTests: XCTestCase {
    func runTool(_ arguments: [String]) throws -> CommandLineTool.Result {
        try CommandLineTool.run(arguments)
    }

    func testGoodFolderExitsZeroAndPrintsEachOutput() throws {
        let folder = try temporaryFolder(self)
        let result = try runTool(["prepare", Fixture.path("orientation/Landscape_1.jpg"), Fixture.path("photos/DSCN0010.jpg"), "--out", folder])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Landscape_1.jpg  600×450  Q92"), result.stdout)
        XCTAssertTrue(result.stderr.contains("2 written"), result.stderr)
        XCTAssertFalse(result.stderr.contains("\r"), "no progress display when stderr is not a terminal")
        XCTAssertFalse(result.stderr.contains("\u{1B}["), "no colour when stderr is not a terminal")
    }

    /// Each failed photo is an error line naming it, escaped so that a file name cannot forge a line;
    /// `--json` reports the rest.
    func testABadPhotoExitsOneAndNamesTheFile() throws {
        let folder = try temporaryFolder(self)
        let forged = folder + "/bad\nerror: forged by a file name.jpg"
        try FileManager.default.copyItem(atPath: Fixture.path("hostile/not-an-image.jpg"), toPath: forged)
        let result = try runTool(["prepare", Fixture.path("hostile/corrupted.jpg"), forged, Fixture.path("photos/flowers.jpeg"),
                                  "--out", folder + "/out", "--json"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("corrupted.jpg: the JPEG data is damaged or truncated"), result.stderr)
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        XCTAssertEqual(errorLines.count, 2, "a file name forged an error line: \(result.stderr)")
        XCTAssertTrue(errorLines.contains { $0.contains("bad\\nerror: forged by a file name.jpg: not a supported image") }, result.stderr)
        let report = try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.written.map(\.output), ["flowers.jpg"])
        XCTAssertEqual(report.failed.count, 2)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/out/flowers.jpg"))
    }

    /// Usage errors exit 2, the out-of-range numbers a probe found among them (one killed the process
    /// with SIGILL), and an output folder that is a file or holds the input, before anything is written.
    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try runTool(["prepare", "x.jpg"]).status, 2, "missing --out")
        let range = try runTool(["prepare", "x.jpg", "--out", "/tmp/x", "--min-quality", "95", "--max-quality", "80"])
        XCTAssertEqual(range.status, 2)
        XCTAssertTrue(range.stderr.contains("--min-quality 95 is out of range: at most max-quality (80)"), range.stderr)
        XCTAssertEqual(try runTool(["prepare", "x.jpg", "--out", "/tmp/x", "--format", "gif"]).status, 2)
        XCTAssertEqual(try runTool(["frobnicate"]).status, 2)
        for arguments in [["prepare", "--max-edge", "3000000000"], ["prepare", "--max-bytes", "9223372036854775807"],
                          ["thumbs", "--variant", "x=3000000000"], ["thumbs", "--variant", "grid=0"], ["prepare", "--jobs", "100000000"]] {
            let result = try runTool(arguments + [Fixture.path("photos/DSCN0010.jpg"), "--out", NSTemporaryDirectory() + "/bounds-\(UUID())"])
            XCTAssertNil(result.signal, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("out of range") || result.stderr.contains("must be"), result.stderr)
        }

        let folder = try temporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder + "/samedir", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/DSCN0010.jpg"), toPath: folder + "/samedir/a.jpg")
        let file = try runTool(["prepare", folder + "/samedir", "--out", folder + "/samedir/a.jpg"])
        XCTAssertEqual(file.status, 2)
        XCTAssertTrue(file.stderr.contains("is a file; give a folder for the outputs"), file.stderr)
        let itself = try runTool(["prepare", folder + "/samedir", "--out", folder])
        XCTAssertEqual(itself.status, 2)
        XCTAssertTrue(itself.stderr.contains("or holds it; choose a folder of its own, e.g. --out samedir-ready"), itself.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/samedir"), ["a.jpg"])
    }

    /// Every command's help has examples whose lines are whole (a long one continues with `\`, never
    /// wraps mid-argument), and every option `--help` lists is in the README's section for it.
    func testHelpExamplesAreWholeAndTheReadmeListsEveryOption() throws {
        let readme = try String(contentsOf: Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        func section(_ heading: String) -> Substring {
            let start = readme.range(of: "### " + heading)!.upperBound
            let rest = readme[start...]
            return rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex)]
        }
        let sections = ["prepare": "prepare", "thumbs": "thumbs", "inspect": "inspect", "register": "register, edit, attach, publish",
                        "edit": "register, edit, attach, publish", "attach": "register, edit, attach, publish",
                        "publish": "register, edit, attach, publish", "url": "url", "serve": "serve: the thumbnail service",
                        "list": "list, show, delete", "show": "list, show, delete", "delete": "list, show, delete",
                        "preview": "preview"]
        for command in [""] + sections.keys.sorted() {
            let help = try runTool((command.isEmpty ? [] : [command]) + ["--help"])
            XCTAssertEqual(help.status, 0)
            let lines = help.stdout.components(separatedBy: "\n")
            let examples = lines.drop { $0 != "EXAMPLES:" }.dropFirst().prefix { !$0.hasPrefix("USAGE:") && !$0.hasPrefix("Exit status") }
                .filter { !$0.isEmpty }
            XCTAssertFalse(examples.isEmpty, "\(command) has examples")
            for (index, line) in examples.enumerated() {
                let continues = index > 0 && examples[examples.index(examples.startIndex, offsetBy: index - 1)].hasSuffix(" \\")
                XCTAssertTrue(line.hasPrefix(continues ? "      " : "  market-images "), "\(command): a wrapped example line: \(line)")
            }
            // serve's flags are the settings table's, which ServiceSettingsTests holds to the README.
            guard let heading = sections[command], command != "serve" else { continue }
            let options = Set(lines.drop { $0 != "OPTIONS:" }.compactMap { line -> String? in
                guard let match = line.range(of: #"^  (-[a-z], )?--[a-z][a-z0-9-]*"#, options: .regularExpression) else { return nil }
                return String(line[match].split(separator: " ").last!)
            }).subtracting(["--help", "--version"])
            XCTAssertFalse(options.isEmpty)
            let text = section(heading)
            for option in options.sorted() where text.range(of: option + "(?![a-z-])", options: .regularExpression) == nil {
                XCTFail("README's \"\(heading)\" section does not mention \(option), which `\(command) --help` lists")
            }
        }
        XCTAssertEqual(try runTool(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, false)
    }

    /// `url` prints what a signer with the same key makes, and the path parses back to the source.
    func testURLPrintsASignedPathThatParsesBack() throws {
        let result = try CommandLineTool.run(["url", "local:///sku 1/IMG_1.HEIC", "pr:list", "dpr:3", "--format", "webp", "--base", "https://img.test/"],
                                             environment: ["MARKET_IMAGES_KEY": "736563726574", "MARKET_IMAGES_SALT": "68656C6C6F"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let url = result.stdout.trimmingCharacters(in: .newlines)
        XCTAssertTrue(url.hasPrefix("https://img.test/"), url)
        let path = String(url.dropFirst("https://img.test/".count))
        let signature = String(path.prefix { $0 != "/" })
        let request = try ImageRequestPath.parse(String(path.dropFirst(signature.count)))
        XCTAssertEqual(request.source, "local:///sku 1/IMG_1.HEIC")
        XCTAssertEqual(request.options.format, .webp)
        XCTAssertFalse(result.stdout.contains("736563726574") || result.stderr.contains("736563726574"), "the key is never printed")
        XCTAssertEqual(try CommandLineTool.run(["url", "local:///a.jpg", "rs:squash:1"]).status, 2)
    }

    /// `url -`: the image URLs a server returned, one per line, to thumbnail URLs signed by the first
    /// of two rotated keys (the one that verifies them), blank lines skipped, one URL per line.
    func testURLReadsManySourcesFromStandardInput() throws {
        let sources = ["https://img.test/products/1/a.jpg", "", "https://img.test/products/2/b.png", "local:///sku 1/IMG_1.HEIC"]
        let result = try CommandLineTool.run(["url", "-", "pr:grid", "dpr:2", "--format", "jpg"],
                                             environment: ["MARKET_IMAGES_KEY": "736563726574,6e6577", "MARKET_IMAGES_SALT": "68656C6C6F,73616c74"],
                                             input: sources.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        let signer = try ThumbnailURLSigner(hexKey: "736563726574", hexSalt: "68656C6C6F")
        for (line, source) in zip(lines, sources.filter { !$0.isEmpty }) {
            XCTAssertEqual(line, signer.signedPath(options: ["pr:grid", "dpr:2"], source: source, format: "jpg"))
        }
    }

    /// `url --root`: a local photo's URL carries `cb` from its bytes, so replacing the photo (same
    /// name) changes the URL an app's image cache keys on; an unreadable one is named.
    func testURLGivesALocalPhotoACacheBusterFromItsBytes() throws {
        let root = try temporaryFolder(self)
        try FileManager.default.createDirectory(atPath: root + "/sku 1", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: root + "/sku 1/IMG_1.jpg")
        let arguments = ["url", "local:///sku 1/IMG_1.jpg", "pr:list", "--root", root]
        let first = try CommandLineTool.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        let cb = "cb:" + ThumbnailURLSigner.cacheBuster(for: try Data(contentsOf: URL(fileURLWithPath: root + "/sku 1/IMG_1.jpg")))
        XCTAssertEqual(first.stdout, "/insecure" + ThumbnailURLSigner.path(options: ["pr:list", cb], source: "local:///sku 1/IMG_1.jpg") + "\n")
        try FileManager.default.removeItem(atPath: root + "/sku 1/IMG_1.jpg")
        try FileManager.default.copyItem(atPath: Fixture.path("photos/DSCN0010.jpg"), toPath: root + "/sku 1/IMG_1.jpg")
        let replaced = try CommandLineTool.run(arguments)
        XCTAssertNotEqual(replaced.stdout, first.stdout, "a replaced photo gets a new URL")
        let missing = try CommandLineTool.run(["url", "local:///gone.jpg", "pr:list", "--root", root])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("gone.jpg: cannot be read for its cb"), missing.stderr)
    }

    func testThumbsDryRunWritesNothingAndBadVariantIsAUsageError() throws {
        let folder = try temporaryFolder(self) + "/thumbs"
        let dryRun = try runTool(["thumbs", Fixture.path("orientation/Landscape_1.jpg"), "--out", folder, "--dry-run", "--prune"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(dryRun.stdout.contains("would process "), dryRun.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))

        let made = try runTool(["thumbs", Fixture.path("orientation/Landscape_1.jpg"), "--out", folder, "--variant", "detail=375", "--scales", "1", "--format", "webp"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.contains("Landscape_1.detail@1x.webp  375×375"), made.stdout)

        let bad = try runTool(["thumbs", "x.jpg", "--out", folder, "--variant", "detail"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("NAME=POINTS"), bad.stderr)
        XCTAssertEqual(try runTool(["thumbs", "x.jpg", "--out", folder, "--scales", "2,x"]).status, 2)
    }

    func testInspectReportsGPSAndWhatPrepareWouldDo() throws {
        let result = try runTool(["inspect", Fixture.path("photos/DSCN0010.jpg"), Fixture.path("orientation/Landscape_6.jpg")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("GPS location!"), result.stdout)
        XCTAssertTrue(result.stdout.contains("rotate upright (EXIF orientation 6)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("result:      JPEG 600×450 at Q92"), result.stdout)

        let json = try runTool(["inspect", Fixture.path("hostile/65536-uint32-limit.png"), "--json"])
        XCTAssertEqual(json.status, 1)
        let findings = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue((findings[0]["error"] as? String)?.contains("refused before decoding") ?? false)
    }

    /// 280 megapixels decode through shrink-on-load within the memory a seller's laptop can spare.
    func testGiantImageStaysWithin300MBWhenAllowed() throws {
        let folder = try temporaryFolder(self)
        let result = try runTool(["prepare", Fixture.path("hostile/giant-image.jpg"), "--out", folder, "--max-pixels", "300000000", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONDecoder().decode(FolderReport.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.written.map { [$0.width, $0.height] }, [[2048, 1434]])
        let peak = try XCTUnwrap(report.peakMemoryBytes)
        XCTAssertGreaterThan(peak, 10 * 1024 * 1024, "a real measurement, not a placeholder")
        XCTAssertLessThan(peak, 300 * 1024 * 1024, "peak RSS \(peak / 1_048_576) MB")
    }
}

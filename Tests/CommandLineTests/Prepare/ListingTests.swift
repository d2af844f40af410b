import Foundation
import TestSupport
import XCTest

/// `prepare`'s `--listing`, `--background`, `--fill` and `--model` as a user types them: a broken
/// rule is a warning on stderr naming the measure, a typo lists the table's names, and
/// `--background` without its model stops before any photo, saying what to install.
final class ListingTests: FolderTestCase {
    func testListingAndBackgroundFlags() throws {
        try copyFlat(["photos/DSCN0010.jpg"])
        let checked = try CommandLineTool.run(["prepare", input, "--out", root + "/out", "--listing", "amazon"])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertTrue(checked.stderr.contains("long side 640 px, Amazon wants 1000 px or more"), checked.stderr)
        XCTAssertTrue(checked.stderr.contains("white at the edges, Amazon wants pure white (RGB 255)"), checked.stderr)

        let typo = try CommandLineTool.run(["prepare", input, "--out", root + "/out", "--listing", "etsy"])
        XCTAssertEqual(typo.status, 2, typo.stderr)
        XCTAssertTrue(typo.stderr.contains("'amazon', 'ebay', 'coupang', 'naver' or 'openmarket'"), typo.stderr)

        let noModel = try CommandLineTool.run(["prepare", input, "--out", root + "/white", "--background", "white", "--model", root + "/nowhere/u2netp.onnx"])
        XCTAssertEqual(noModel.status, 2, noModel.stderr)
        XCTAssertTrue(noModel.stderr.contains("no background model (u2netp.onnx) at \(root)/nowhere/u2netp.onnx; run scripts/setup --background"), noModel.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/white"), "nothing is made")

        let loneFill = try CommandLineTool.run(["prepare", input, "--out", root + "/out", "--fill", "0.9"])
        XCTAssertEqual(loneFill.status, 2, loneFill.stderr)
        XCTAssertTrue(loneFill.stderr.contains("--fill and --model go with --background white"), loneFill.stderr)
    }
}

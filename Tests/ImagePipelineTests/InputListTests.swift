import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// What a new user gives a run as inputs, each done the way they did it: the same photo more than
/// once, photos nested below product folders.
final class InputListTests: FolderTestCase {
    /// The same folder twice, a file three times, a folder and a file inside it: each photo once.
    func testTheSameInputGivenTwiceIsUsedOnce() throws {
        try copy("photos/DSCN0010.jpg", to: "shop/Blue Vase/front.jpg")
        try copy("photos/flowers.jpeg", to: "shop/Blue Vase/side.jpg")
        let vase = input + "/shop/Blue Vase"
        let twice = try prepareRun([vase, vase], into: output + "/a")
        XCTAssertTrue(twice.succeeded, "\(twice.failed)")
        XCTAssertEqual(twice.written.map(\.output), ["Blue Vase/front.jpg", "Blue Vase/side.jpg"])
        XCTAssertTrue(twice.warnings.contains { $0.hasSuffix("given more than once; used once") }, "\(twice.warnings)")

        let file = vase + "/front.jpg"
        let thrice = try prepareRun([file, file, file, vase], into: output + "/b")
        XCTAssertEqual(thrice.written.map(\.output).sorted(), ["Blue Vase/side.jpg", "front.jpg"])
        XCTAssertEqual(Manifest.load(from: output + "/b")?.outputs.count, 2, "everything written is recorded")
        let files = try FileManager.default.subpathsOfDirectory(atPath: output + "/b").filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(files.sorted(), ["Blue Vase/side.jpg", "front.jpg"], "no -2 copies")
    }

    func testPhotosNestedBelowProductFoldersAreNamedInAWarning() throws {
        try copy("photos/DSCN0010.jpg", to: "shop/sku-1/a.jpg")
        try copy("photos/DSCN0010.jpg", to: "shop/sku-2/angles/b.jpg")
        let report = try prepareRun([input + "/shop"], into: output)
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        XCTAssertTrue(report.warnings.contains { $0.contains("sku-2: photos in its subfolders (angles) are not read") }, "\(report.warnings)")
    }
}

import TestSupport
import XCTest
@testable import ImagePipeline

/// Step 2: all eight EXIF orientations come out looking the same, judged by pixels.
final class OrientationTests: XCTestCase {
    func testAllEightOrientationsLookLikeOrientationOne() throws {
        let folder = try temporaryFolder(self)
        let preparer = try ImagePreparer()
        let outputs = try Fixture.orientations.map { try readBack(try preparer.prepare(file: $0).data, in: folder) }
        let reference = try outputs[0].image.grid()
        for (index, output) in outputs.enumerated() {
            XCTAssertEqual(output.image.width, 600, "orientation \(index + 1)")
            XCTAssertEqual(output.image.height, 450, "orientation \(index + 1)")
            XCTAssertEqual(output.header.orientation, 1)
            // Orientations 2–8 carry a "Generic RGB" profile that 1 lacks, so colours shift slightly.
            XCTAssertLessThan(largestDifference(try output.image.grid(), reference), 12, "orientation \(index + 1)")
        }
    }

    /// The comparison above must be able to fail: the same photo mirrored differs by far more.
    func testGridComparisonDetectsAMirroredImage() throws {
        let folder = try temporaryFolder(self)
        let grid = try readBack(try ImagePreparer().prepare(file: Fixture.orientations[0]).data, in: folder).image.grid()
        let mirrored = stride(from: 0, to: 9, by: 3).flatMap { row in [grid[row + 2], grid[row + 1], grid[row]] }
        XCTAssertGreaterThan(largestDifference(grid, mirrored), 30)
    }

    func testPortraitHEICStaysPortrait() throws {
        let encoded = try ImagePreparer().prepare(file: Fixture.path("photos/iphone_13_pro_max.HEIC"))
        XCTAssertGreaterThan(encoded.height, encoded.width)
    }
}

import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// The shrink's AVX2 path and its SSE2 path (`MARKET_IMAGES_NO_AVX2`, and any x86-64 CPU without
/// AVX2) do the same integer arithmetic: a thumbnail run writes the same bytes either way. The kernel
/// reads the variable per filter, so both paths run in this process, one after the other.
final class ShrinkPathTests: XCTestCase {
    func testTheSSE2PathWritesTheSameBytesAsTheAVX2Path() throws {
        let folder = try temporaryFolder(self)
        let inputs = ["photos/jolla.jpg", "photos/2569067123_aca715a2ee_o.jpg", "orientation/Landscape_5.jpg"].map(Fixture.path)
        defer { unsetenv("MARKET_IMAGES_NO_AVX2") }
        var outputs: [[String: Data]] = []
        for noAVX2 in [false, true] {
            if noAVX2 { setenv("MARKET_IMAGES_NO_AVX2", "1", 1) }
            let out = folder + "/out-\(outputs.count)"
            let report = try FolderProcessor(job: FolderJob(inputs: inputs, outputFolder: out, prepare: nil, thumbnails: ThumbnailOptions())).run()
            XCTAssertTrue(report.succeeded, "\(report.failed)")
            let names = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.hasSuffix(".jpg") }
            outputs.append(Dictionary(uniqueKeysWithValues: try names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0))) }))
        }
        XCTAssertEqual(outputs[0].count, 12, "4 sizes of 3 photos")
        XCTAssertEqual(outputs[0], outputs[1])
    }
}

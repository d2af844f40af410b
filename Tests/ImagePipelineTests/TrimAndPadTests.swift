import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// What a folder run writes when asked to trim a border from upload images, or to pad thumbnails to
/// a full square, read back by their headers.
final class TrimAndPadTests: XCTestCase {
    /// Trimming cuts a uniform border (here 40 px of white padding); without it the border stays.
    func testPrepareTrimCutsAUniformBorder() throws {
        let folder = try temporaryFolder(self)
        var spec = RenderSpec(width: 400, height: 400, format: .png)
        spec.padding = RenderSpec.Padding(top: 40, right: 40, bottom: 40, left: 40)
        let bordered = try ImageRenderer(spec: spec).render(.file(Fixture.path("photos/DSCN0010.jpg")), maxPixels: .max)
        try bordered.data.write(to: URL(fileURLWithPath: folder + "/bordered.png"))
        for (trim, size) in [(true, (bordered.width - 80, bordered.height - 80)), (false, (bordered.width, bordered.height))] {
            let out = folder + "/out-\(trim)"
            var options = PrepareOptions()
            options.trim = trim
            let report = try FolderProcessor(job: FolderJob(inputs: [folder + "/bordered.png"], outputFolder: out, prepare: options)).run()
            XCTAssertTrue(report.succeeded, "\(report.failed)")
            let prepared = try ImageHeader.read(file: out + "/bordered.jpg")
            XCTAssertEqual(Double(prepared.width), Double(size.0), accuracy: 1, "trim: \(trim)")
            XCTAssertEqual(Double(prepared.height), Double(size.1), accuracy: 1, "trim: \(trim)")
        }
    }

    /// Padded thumbnails: every variant a full square, the photo whole inside, on its edge colour.
    func testThumbsPadFillsTheSquareWithTheWholePhoto() throws {
        let out = try temporaryFolder(self)
        var options = ThumbnailOptions()
        options.crop = .pad
        let report = try FolderProcessor(job: FolderJob(inputs: [Fixture.path("photos/jolla.jpg")], outputFolder: out, prepare: nil, thumbnails: options)).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        for name in ["jolla.list@2x.jpg", "jolla.grid@3x.jpg"] {
            let image = try ImageHeader.read(file: out + "/" + name)
            XCTAssertEqual(image.width, image.height, name)
            XCTAssertEqual(image.width, name.contains("list") ? 160 : 600, name)
        }
    }
}

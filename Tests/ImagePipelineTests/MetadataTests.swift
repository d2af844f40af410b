import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Step 5: nothing but pixels leaves the machine. Checked three ways: by walking the JPEG/PNG/WebP
/// container directly, by reading the output back through libvips, and with ExifTool.
final class MetadataTests: XCTestCase {
    func testGPSPhotoLosesItsLocation() throws {
        let path = Fixture.path("photos/DSCN0010.jpg")
        let source = try ImageHeader.read(file: path)
        XCTAssertTrue(source.metadata.gps, "fixture must carry GPS for this test to mean anything")
        XCTAssertTrue(ContainerMetadata.kinds(in: try Data(contentsOf: URL(fileURLWithPath: path))).contains("EXIF"))

        let encoded = try ImagePreparer().prepare(file: path)
        XCTAssertEqual(ContainerMetadata.kinds(in: encoded.data), [])
        let folder = try temporaryFolder(self)
        XCTAssertEqual(try readBack(encoded.data, in: folder).header.metadata, MetadataPresence(fieldNames: []))
        XCTAssertNil(encoded.data.range(of: Data("GPS".utf8)))
    }

    /// Each fixture decoded once and encoded in both upload formats; every output's container and its
    /// header as libvips reads it back carry nothing.
    func testNoOutputOfAnyFixtureCarriesMetadata() throws {
        let folder = try temporaryFolder(self)
        let preparers = try [OutputFormat.jpeg, .png].map { format in
            var options = PrepareOptions()
            options.format = format
            return try ImagePreparer(options: options)
        }
        for path in Fixture.photos {
            let decoded = try preparers[0].decode(file: path)
            for preparer in preparers {
                let encoded = try preparer.encode(decoded, stem: "x")
                XCTAssertEqual(ContainerMetadata.kinds(in: encoded.data), [], "\(path) as \(preparer.options.format)")
                let written = folder + "/" + UUID().uuidString
                try encoded.data.write(to: URL(fileURLWithPath: written))
                XCTAssertTrue(try ImageHeader.read(file: written).metadata.isEmpty, "\(path) as \(preparer.options.format)")
            }
        }
    }

    /// Every kind of folder run and output format, from inputs in every format stuffed with EXIF,
    /// GPS, XMP, IPTC and Nikon maker notes: ExifTool finds nothing but the container in any output.
    func testExifToolFindsNothingInAnyOutputOfAnyFolderRun() throws {
        let inputs = ["jpg", "png", "webp", "tif"].map { Fixture.path("metadata/everything.\($0)") }
            + [Fixture.path("photos/iphone_13_pro_max.HEIC"), Fixture.path("photos/DSCN0010.jpg")]
        let before = try Exiftool.metadata(in: inputs)
        for input in inputs {
            XCTAssertTrue(before[input]?.contains { $0.hasPrefix("ExifIFD:") || $0.hasSuffix(":UnknownEXIF") } ?? false,
                          "the reader must see the input's metadata for this test to mean anything: \(input)")
        }
        let root = try temporaryFolder(self)
        var png = PrepareOptions()
        png.format = .png
        png.maxBytes = 2_000_000
        func thumbnails(_ format: OutputFormat) -> ThumbnailOptions {
            var options = ThumbnailOptions()
            options.format = format
            return options
        }
        let runs: [(prepare: PrepareOptions?, thumbnails: ThumbnailOptions?)] = [
            (PrepareOptions(), nil), (png, nil), (nil, thumbnails(.jpeg)), (nil, thumbnails(.webp)), (nil, thumbnails(.jxl)),
            (PrepareOptions(), thumbnails(.webp)),
        ]
        for (index, run) in runs.enumerated() {
            var job = FolderJob(inputs: inputs, outputFolder: "\(root)/\(index)", prepare: run.prepare, thumbnails: run.thumbnails)
            if run.prepare != nil { job.thumbnailSubfolder = FolderJob.thumbnailsBesideUploads }
            let report = try FolderProcessor(job: job).run()
            XCTAssertTrue(report.succeeded, "run \(index): \(report.failed)")
        }
        let outputs = (FileManager.default.subpaths(atPath: root) ?? [])
            .filter { ["jpg", "png", "webp", "jxl"].contains(($0 as NSString).pathExtension) }.map { root + "/" + $0 }
        XCTAssertGreaterThanOrEqual(outputs.count, inputs.count * (2 + 4 + 4 + 4 + 5), "every run wrote its outputs")
        let found = try Exiftool.metadata(in: outputs)
        XCTAssertEqual(found.count, outputs.count)
        for (path, tags) in found { XCTAssertEqual(tags, [], path) }
    }
}

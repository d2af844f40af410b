import XCTest
@testable import ImagePipeline

/// Step 5: nothing but pixels leaves the machine. Checked twice: by walking the JPEG/PNG container
/// directly, and by reading the output back through libvips.
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

    func testNoOutputOfAnyFixtureCarriesMetadata() throws {
        let folder = try temporaryFolder(self)
        for format in [OutputFormat.jpeg, .png] {
            var options = PrepareOptions()
            options.format = format
            for path in Fixture.photos {
                let encoded = try ImagePreparer(options: options).prepare(file: path)
                XCTAssertEqual(ContainerMetadata.kinds(in: encoded.data), [], "\(path) as \(format)")
                XCTAssertTrue(try readBack(encoded.data, in: folder).header.metadata.isEmpty, "\(path) as \(format)")
            }
        }
    }
}

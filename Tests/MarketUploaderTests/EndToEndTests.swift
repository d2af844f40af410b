import Foundation
import ImagePipeline
import MarketUploader
import TestSupport
import XCTest

/// A seller's photos, through `prepare`, registered on each dialect's server: what the server stores
/// must decode, fit the limit, be upright and carry no location.
final class EndToEndTests: UploaderTestCase {
    func testPhotosFolderToRegisteredProduct() async throws {
        let photos = [("photos/iphone_13_pro_max.HEIC", "IMG_0001.HEIC"), ("photos/DSCN0010.jpg", "IMG_0002.jpg"),
                      ("orientation/Landscape_6.jpg", "IMG_0003.jpg"), ("alpha/Flag_of_the_Netherlands-alpha.png", "IMG_0004.png")]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (fixture, name) in photos { try Self.fixture(fixture).write(to: folder.appendingPathComponent(name)) }

        // Prepared once; the same bytes go to every dialect's server.
        let preparer = try ImagePreparer()
        let images = try photos.map { _, name in
            let prepared = try preparer.prepare(file: folder.appendingPathComponent(name).path)
            return UploadImage(filename: prepared.suggestedFilename, data: prepared.data)
        }
        for dialect in Dialect.allCases {
            let client = try await startServer(dialect)
            let product = try await client.register(Self.draft, images: images, credentials: credentials(for: dialect))
            let stored = try await XCTUnwrapAsync(await server.products[product.id])
            XCTAssertEqual(stored.images.map(\.filename), ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "IMG_0004.jpg"])
            var storedPaths: [String] = []
            for image in stored.images {
                XCTAssertLessThanOrEqual(image.data.count, 300_000)
                XCTAssertEqual(image.contentType, "image/jpeg")
                let path = folder.appendingPathComponent("stored-\(dialect.rawValue)-\(image.filename)")
                try image.data.write(to: path)
                storedPaths.append(path.path)
                let header = try ImageHeader.read(file: path.path)
                XCTAssertFalse(header.metadata.gps, image.filename)
                XCTAssertTrue(header.metadata.isEmpty, image.filename)
                XCTAssertEqual(header.orientation, 1)
            }
            let metadata = try Exiftool.metadata(in: storedPaths)
            XCTAssertEqual(metadata.count, storedPaths.count)
            for (path, tags) in metadata { XCTAssertEqual(tags, [], "exiftool finds metadata in \(path)") }
            // The sideways photo arrives upright: landscape, 600×450.
            let sideways = try ImageHeader.read(file: folder.appendingPathComponent("stored-\(dialect.rawValue)-IMG_0003.jpg").path)
            XCTAssertEqual([sideways.width, sideways.height], [600, 450])
            await server.stop()
        }
    }
}

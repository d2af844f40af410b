import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Publishing keeps a server in line with the products folder, in every dialect: the plan names
/// exactly what changed, applying it sends only that, and a rerun sends and writes nothing.
final class PublishSyncInProcessTests: PublishingTestCase {
    private static func mug(price: Int) -> String {
        #"{"name":"Ceramic mug","description":"Hand-thrown, holds 350 ml.","price":\#(price),"currency":"KRW","stock":2}"#
    }

    /// Path → (modification time, inode) of every file under the test's folder.
    private func fileStamps() throws -> [String: String] {
        var stamps: [String: String] = [:]
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + relative)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            stamps[relative] = "\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) \(attributes[.systemFileNumber] ?? 0)"
        }
        return stamps
    }

    func testAChangedPriceIsOneEditOfThatFieldAloneInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
            let registered = try await publish()
            XCTAssertEqual(registered.map(\.result), [.done], "\(dialect): \(registered.map(\.detail))")
            let id = try XCTUnwrap(registered.first?.productID)
            let listed = try await XCTUnwrapAsync(server.products[id])

            try Self.mug(price: 8000).write(toFile: folder + "/product.json", atomically: true, encoding: .utf8)
            let before = await server.requestCount
            let planned = try await plan { $0.dryRun = true }
            XCTAssertEqual(planned.map(\.action), [.edit], "\(dialect)")
            XCTAssertEqual(planned.first?.productID, id)
            XCTAssertEqual(planned.first?.changes, [FieldChange(field: "price", from: "₩9,000", to: "₩8,000")])
            var sent = await server.requestCount
            XCTAssertEqual(sent, before + 1, "\(dialect): a dry run reads one list page and sends nothing")
            let reads = await server.received.suffix(sent - before).map(\.method)
            XCTAssertEqual(reads, ["GET"], "\(dialect)")

            let edited = try await publish()
            XCTAssertEqual(edited.map(\.action), [.edit], "\(dialect)")
            XCTAssertEqual(edited.map(\.result), [.done], "\(dialect): \(edited.map { $0.error ?? "" })")
            sent = await server.requestCount
            XCTAssertEqual(sent, before + 3, "\(dialect): then one list page read, one edit sent")
            let patch = try await XCTUnwrapAsync(server.lastRequest)
            XCTAssertEqual(patch.method, "PATCH")
            if dialect == .items {
                XCTAssertEqual(patch.parts.compactMap(\.name).sorted(), ["password", "price"], "only the changed field")
                XCTAssertTrue(patch.parts.allSatisfy { $0.filename == nil }, "no images when only a field changed")
            } else {
                let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: patch.body) as? [String: Any])
                XCTAssertEqual(body.keys.sorted(), ["price", "secret"], "only the changed field")
            }
            let now = try await XCTUnwrapAsync(server.products[id])
            XCTAssertEqual(Double(now.fields["price"] ?? ""), 8000)
            XCTAssertEqual(now.fields.filter { $0.key != "price" }, listed.fields.filter { $0.key != "price" }, "\(dialect): nothing else changed")
            XCTAssertEqual(now.images.map(\.data), listed.images.map(\.data), "\(dialect): the photos stay")

            let stamps = try fileStamps()
            let rerun = try await publish()
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect)")
            let after = await server.requestCount
            XCTAssertEqual(after, sent + 1, "\(dialect): an unchanged rerun reads one list page and sends nothing")
            XCTAssertEqual(try fileStamps(), stamps, "\(dialect): an unchanged rerun rewrites no file")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// G1 takes a new set of photos on its edit; G2 and G3 cannot change a product's images, so the
    /// product is blocked until recreating is allowed, which registers the new version and deletes
    /// the old one.
    func testASwappedPhotoReplacesTheSetOnItemsAndIsRecreatedElsewhere() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"], json: Self.mug(price: 9000))
            let registered = try await publish()
            XCTAssertEqual(registered.map(\.result), [.done])
            let old = try await XCTUnwrapAsync(server.products.values.first)
            try FileManager.default.removeItem(atPath: folder + "/IMG_1.jpg")
            try Self.fixture("orientation/Landscape_6.jpg").write(to: URL(fileURLWithPath: folder + "/IMG_1.jpg"))
            let writes = await server.received.filter { $0.method != "GET" }.count

            let planned = try await plan { $0.dryRun = true }
            XCTAssertEqual(planned.map(\.action), [dialect == .items ? .replaceImages : .blocked], "\(dialect)")
            if dialect != .items {
                let blocked = try await publish()
                XCTAssertEqual(blocked.map(\.action), [.blocked])
                XCTAssertTrue(blocked.allSatisfy(\.isUnresolved), "a blocked product is not in line with its folder")
                XCTAssertTrue(blocked[0].detail.contains("cannot change a product's images: --recreate registers the new version"), blocked[0].detail)
                let after = await server.received.filter { $0.method != "GET" }.count
                XCTAssertEqual(after, writes, "\(dialect): blocked sends nothing")
            }
            let applied = try await publish { $0.allowRecreate = true }
            XCTAssertFalse(applied.contains(where: \.isUnresolved), "\(dialect): \(applied.map { $0.error ?? $0.detail })")
            let listings = await server.products
            XCTAssertEqual(listings.count, 1, "\(dialect): exactly one listing")
            let listing = try XCTUnwrap(listings.values.first)
            XCTAssertEqual(listing.id == old.id, dialect == .items, "\(dialect): G1 keeps the id; G2/G3 register anew")
            let image = try XCTUnwrap(listing.images.first?.data)
            XCTAssertNotEqual(image, old.images.first?.data, "the server holds the new photo")
            XCTAssertLessThanOrEqual(image.count, 300_000)
            let path = root + "/received-\(dialect.rawValue).jpg"
            try image.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try Exiftool.metadata(in: [path]).values.flatMap { $0 }, [], "\(dialect): no metadata reached the server")
            let rerun = try await plan()
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect)")
            try FileManager.default.removeItem(atPath: products)
        }
    }
}

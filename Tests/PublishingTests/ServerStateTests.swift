import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Publishing plans from what the server holds, not from its record of what it sent: a listing
/// changed or deleted on the server is put back in line with its folder, a folder `register` listed
/// or another tool listed is not listed twice, and a renamed folder stays its listing's. Each also
/// after a run killed while the server held its request.
final class ServerStateTests: PublishingTestCase {
    private static let lamp = #"{"name":"Desk lamp","description":"A brass desk lamp with a linen shade.","price":9000,"currency":"KRW","stock":3}"#

    /// The only listing on the server, and its fields.
    private func onlyListing(_ dialect: Dialect, file: StaticString = #filePath, line: UInt = #line) async throws -> (id: Int, stock: String) {
        let listed = await server.products
        XCTAssertEqual(listed.count, 1, "\(dialect): exactly one listing", file: file, line: line)
        let product = try XCTUnwrap(listed.values.first, file: file, line: line)
        return (product.id, product.fields["stock"].map { String(Int(Double($0) ?? -1)) } ?? "")
    }

    /// The lamp's folder published to a fresh server of `dialect`: its listing's id.
    private func publishedLamp(_ dialect: Dialect) async throws -> Int {
        try await start(dialect)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
        _ = try await publish()
        return try await onlyListing(dialect).id
    }

    /// Requests that change the server, as the server received them.
    private func changes() async -> Int {
        await server.received.filter { $0.method != "GET" }.count
    }

    /// Applies `first` with the server holding back its answer, stops the run once the request is in,
    /// and lets the server carry it out anyway: a run killed mid-request.
    private func killed(_ run: PublishRun, applying first: PublishStep) async {
        let release = Gate(), arrived = Gate(), handled = Gate()
        await server.arm(.hold(until: release, arrived: arrived, handled: handled))
        let running = Task { [run] in
            var run = run
            return await run.apply(first)
        }
        await arrived.wait()
        running.cancel()
        _ = await running.value
        await release.open()
        await handled.wait()
    }

    /// The stock changed on the server (the app's edit screen, a second device) is an edit back to
    /// the folder's, named as the server's; the server is read with one list page.
    func testAChangeMadeOnTheServerIsPutBack() async throws {
        for dialect in Dialect.allCases {
            let id = try await publishedLamp(dialect)
            _ = try await client.edit(id: id, ProductChange(stock: 1), credentials: credentials(for: dialect))
            // A dry run reads the server too and shows the plan a real run carries out; it sends nothing
            // (it planned from the record: "unchanged", while the real run edited the stock back).
            let before = await changes()
            let dryPlan = try await plan { $0.dryRun = true }
            XCTAssertEqual(dryPlan.map(\.action), [.edit], "\(dialect): \(dryPlan.map(\.detail))")
            XCTAssertEqual(dryPlan.first?.detail, "stock 1 on the server, 3 in product.json", "\(dialect)")
            let afterDry = await changes()
            XCTAssertEqual(afterDry, before, "\(dialect): a dry run sends nothing")

            var run = try publishRun()
            let planned = try await run.plan(folders: ProductsFolder(products).productFolders)
            XCTAssertEqual(planned.map(\.action), [.edit], "\(dialect): \(planned.map(\.detail))")
            XCTAssertEqual(planned.first?.detail, "stock 1 on the server, 3 in product.json", "\(dialect)")
            XCTAssertEqual(run.serverRead?.cost, "1 list page (1 request)", "\(dialect)")
            let applied = await run.apply(planned[0])
            XCTAssertEqual(applied.result, .done, "\(dialect): \(applied.error ?? "")")
            let (_, stock) = try await onlyListing(dialect)
            XCTAssertEqual(stock, "3", "\(dialect): the server holds the folder's stock again")
            let again = try await plan()
            XCTAssertEqual(again.map(\.action), [.unchanged], "\(dialect)")

            // Killed while the server held an edit it then made: the rerun sees the server already
            // holds the folder's stock and sends nothing, though the record never heard the answer.
            try Self.lamp.replacingOccurrences(of: "\"stock\":3", with: "\"stock\":4").write(toFile: products + "/lamp/product.json", atomically: true, encoding: .utf8)
            var stopped = try publishRun()
            let edit = try await stopped.plan(folders: ProductsFolder(products).productFolders)
            XCTAssertEqual(edit.map(\.action), [.edit])
            await killed(stopped, applying: edit[0])
            let sent = await changes()
            let rerun = try await publish()
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect): \(rerun.map(\.detail))")
            let after = await changes()
            XCTAssertEqual(after, sent, "\(dialect): nothing sent twice")
            let (_, now) = try await onlyListing(dialect)
            XCTAssertEqual(now, "4")
            let dry = try await plan { $0.dryRun = true }
            XCTAssertEqual(dry.map(\.action), [.unchanged], "\(dialect): the record follows the server: \(dry.map(\.detail))")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// A listing deleted on the server is registered again, with that reason; a register of it
    /// killed while the server held it, which it made, is found and recorded on the rerun.
    func testAProductDeletedOnTheServerIsRegisteredAgain() async throws {
        for dialect in Dialect.allCases {
            let first = try await publishedLamp(dialect)
            try await client.delete(id: first, credentials: credentials(for: dialect))
            // Within the minute a new listing may answer 404, the plan keeps the record and says so
            // (it said "unchanged" alone).
            let recent = try await plan()
            XCTAssertEqual(recent.map(\.action), [.unchanged], "\(dialect)")
            XCTAssertTrue(recent.first?.detail.hasPrefix("product \(first) answers 404 now, recorded ") == true
                          && recent.first?.detail.contains(" s ago (a new listing can answer 404 for a minute): planned from the record, checked again on the next run") == true,
                          "\(dialect): \(recent.map(\.detail))")
            try backdateRecord()

            let planned = try await plan()
            XCTAssertEqual(planned.map(\.action), [.register], "\(dialect)")
            XCTAssertEqual(planned.first?.detail, "product \(first) is gone from the server: register again, 1 photo at ₩9,000", "\(dialect)")
            let again = try await publish()
            XCTAssertEqual(again.map(\.result), [.done], "\(dialect)")
            let (second, _) = try await onlyListing(dialect)
            XCTAssertNotEqual(second, first)
            let rerun = try await plan()
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect)")

            // Deleted again, and the register that follows killed while the server held it, which
            // it made: the rerun finds that listing and records it; nothing is registered twice.
            try await client.delete(id: second, credentials: credentials(for: dialect))
            try backdateRecord()
            var stopped = try publishRun()
            let register = try await stopped.plan(folders: ProductsFolder(products).productFolders)
            XCTAssertEqual(register.map(\.action), [.register], "\(dialect)")
            await killed(stopped, applying: register[0])
            let sent = await changes()
            let adopted = try await publish()
            XCTAssertEqual(adopted.map(\.action), [.adopt, .unchanged], "\(dialect): \(adopted.map(\.detail))")
            let after = await changes()
            XCTAssertEqual(after, sent, "\(dialect): nothing sent twice")
            let (third, _) = try await onlyListing(dialect)
            XCTAssertEqual(adopted.first?.productID, third)
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// A listing another client has just edited, not on the list page read, answers 404 for a
    /// moment: read again, it is there, and it is edited back, not registered a second time.
    func testAListingJustEditedElsewhereIsNotTakenForDeleted() async throws {
        let id = try await publishedLamp(.openmarket)
        _ = try await client.edit(id: id, ProductChange(stock: 1), credentials: Self.vendor)
        try backdateRecord()
        await server.arm(.status(200, body: #"{"pageNo":1,"itemsPerPage":100,"totalCount":0,"lastPage":1,"hasNext":false,"hasPrev":false,"pages":[]}"#), for: "GET")
        await server.arm(.status(404, body: #"{"code":404,"message":"not found"}"#), for: "GET")
        let planned = try await publish()
        XCTAssertEqual(planned.map(\.action), [.edit], "\(planned.map(\.detail))")
        let (now, stock) = try await onlyListing(.openmarket)
        XCTAssertEqual(now, id)
        XCTAssertEqual(stock, "3")
    }

    /// List pages as the real servers send them (no description, no images): a listing another tool
    /// registered is still adopted by its photos, and a description, or on items the photos, changed
    /// by another client are still seen and put back.
    func testListPagesWithoutDescriptionsOrImagesAreReadWhole() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            await server.listSummaries()
            let folder = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            var draft = try ProductFile.draft(folder: folder, overrides: ProductChange())
            draft.description = "Registered by another tool."
            let other = try await client.register(draft, images: try photoCache.prepare([folder]).uploads(), credentials: credentials(for: dialect))
            let adopted = try await publish()
            XCTAssertEqual(adopted.map(\.action), [.adopt, .edit], "\(dialect): \(adopted.map(\.detail))")
            XCTAssertEqual(adopted.map(\.productID), [other.id, other.id])

            _ = try await client.edit(id: other.id, ProductChange(description: "Changed in the app."), credentials: credentials(for: dialect))
            let described = try await plan()
            XCTAssertEqual(described.map(\.action), [.edit], "\(dialect): \(described.map(\.detail))")
            if dialect == .items {
                _ = try await client.edit(id: other.id, ProductChange(), images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: credentials(for: dialect))
                let replaced = try await plan()
                XCTAssertEqual(replaced.map(\.action), [.replaceImages], "\(dialect): \(replaced.map(\.detail))")
            }
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// `register FOLDER` records the listing where `publish` reads it: the publish that follows is
    /// unchanged, a second register is refused, and a register killed before its answer is adopted.
    func testRegisterThenPublishIsOneListing() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            let folder = try productFolder("zeta", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            let register = { [self] in
                try ProductSubmission.register([folder], overrides: ProductChange(), photos: photoCache, client: client, credentials: credentials(for: dialect))
            }
            _ = try await register().send()
            XCTAssertThrowsError(try register(), "\(dialect): a recorded folder is not registered again") { error in
                guard case PublishingError.alreadyRecorded(let name, let id?, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(name, "zeta")
                XCTAssertGreaterThan(id, 0)
            }
            let published = try await publish()
            XCTAssertEqual(published.map(\.action), [.unchanged], "\(dialect): \(published.map(\.detail))")
            let (first, _) = try await onlyListing(dialect)
            try FileManager.default.removeItem(atPath: products)
            try await client.delete(id: first, credentials: credentials(for: dialect))

            // Killed while the server held the register: pending in the record, adopted by publish.
            let again = try productFolder("zeta", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            let release = Gate(), arrived = Gate(), handled = Gate()
            await server.arm(.hold(until: release, arrived: arrived, handled: handled))
            let submission = try ProductSubmission.register([again], overrides: ProductChange(), photos: photoCache, client: client,
                                                            credentials: credentials(for: dialect))
            let running = Task { try await submission.send() }
            await arrived.wait()
            running.cancel()
            _ = try? await running.value
            await release.open()
            await handled.wait()
            let rerun = try await publish()
            XCTAssertEqual(rerun.map(\.action), [.adopt, .unchanged], "\(dialect): \(rerun.map(\.detail))")
            _ = try await onlyListing(dialect)
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// `register FOLDER` reads the folder as `publish` does: a copy of a photo (`IMG_2041 copy.JPG`,
    /// first in natural order and older on disk) is uploaded once, as the name a person made, with
    /// the warning publish gives; the publish that follows is unchanged. The register sent the copy
    /// twice, and the next publish was blocked until --recreate.
    func testARegisteredFolderWithACopyPublishesUnchanged() async throws {
        try await start(.openmarket)
        let folder = try productFolder("mug", photos: [], json: Self.lamp)
        let photo = try Self.fixture("photos/DSCN0010.jpg")
        try photo.write(to: URL(fileURLWithPath: folder + "/IMG_2041 copy.JPG"))
        try photo.write(to: URL(fileURLWithPath: folder + "/IMG_2041.JPG"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: folder + "/IMG_2041 copy.JPG")
        let submission = try ProductSubmission.register([folder], overrides: ProductChange(), photos: photoCache, client: client,
                                                        credentials: credentials(for: .openmarket))
        XCTAssertEqual(submission.images.count, 1)
        XCTAssertTrue(submission.warnings.contains("IMG_2041 copy.JPG is the same photo as IMG_2041.JPG; only IMG_2041.JPG is uploaded"),
                      "\(submission.warnings)")
        let product = try await submission.send()
        let stored = try await XCTUnwrapAsync(await server.products[product.id])
        XCTAssertEqual(stored.images.count, 1, "the server holds one image")
        let published = try await publish()
        XCTAssertEqual(published.map(\.action), [.unchanged], "\(published.map(\.detail))")
    }

    /// A listing another tool registered with the folder's name, price and photos is adopted, its
    /// stock then edited; one with the name and price but other photos is named, nothing registered.
    func testAListingRegisteredElsewhereIsAdoptedByContent() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            let folder = try productFolder("zeta", photos: ["photos/DSCN0010.jpg"], json: Self.lamp)
            var draft = try ProductFile.draft(folder: folder, overrides: ProductChange())
            draft.stock = 1
            let uploads = try photoCache.prepare([folder]).uploads()
            let other = try await client.register(draft, images: uploads, credentials: credentials(for: dialect))

            let published = try await publish()
            XCTAssertEqual(published.map(\.action), [.adopt, .edit], "\(dialect): \(published.map(\.detail))")
            XCTAssertEqual(published.map(\.productID), [other.id, other.id])
            XCTAssertEqual(published.last?.detail, "stock 1 on the server, 3 in product.json")
            let (id, stock) = try await onlyListing(dialect)
            XCTAssertEqual(id, other.id)
            XCTAssertEqual(stock, "3")

            // The same name and price, other photos: possibly the same product, so nothing is sent.
            try FileManager.default.removeItem(atPath: products)
            _ = try productFolder("zeta", photos: ["photos/DSCN0010.jpg", "orientation/Landscape_6.jpg"], json: Self.lamp)
            let sent = await changes()
            let blocked = try await publish()
            XCTAssertEqual(blocked.map(\.action), [.blocked], "\(dialect)")
            XCTAssertTrue(blocked[0].detail.contains("--adopt zeta=\(other.id)"), blocked[0].detail)
            let after = await changes()
            XCTAssertEqual(after, sent, "\(dialect): nothing registered")
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// A renamed folder is its listing's: renamed, not registered, no orphan; edited as well, the
    /// edit follows; `--adopt` after a rename hands the listing over; a run killed mid-edit after
    /// a rename leaves nothing to send twice.
    func testARenamedFolderKeepsItsListing() async throws {
        for dialect in Dialect.allCases {
            let id = try await publishedLamp(dialect)
            try FileManager.default.moveItem(atPath: products + "/lamp", toPath: products + "/desk-lamp")

            let dry = try await plan { $0.dryRun = true }
            XCTAssertEqual(dry.map(\.action), [.rename, .unchanged], "\(dialect): \(dry.map(\.detail))")
            XCTAssertEqual(dry.first?.detail, "renamed from lamp (the same photos): the same listing, not a new one")
            let renamed = try await publish { $0.deleteOrphans = true }
            XCTAssertEqual(renamed.map(\.action), [.rename, .unchanged], "\(dialect): \(renamed.map(\.detail))")
            XCTAssertEqual(renamed.map(\.productID), [id, id])
            let kept = try await onlyListing(dialect)
            XCTAssertEqual(kept.id, id, "\(dialect): nothing registered or deleted")
            XCTAssertEqual(try PublishLedger.load(from: products).entries(on: baseURL).map(\.folder), ["desk-lamp"])

            // Renamed again with product.json edited: the rename, then the edit.
            try FileManager.default.moveItem(atPath: products + "/desk-lamp", toPath: products + "/brass-lamp")
            try Self.lamp.replacingOccurrences(of: "9000", with: "8000").write(toFile: products + "/brass-lamp/product.json", atomically: true, encoding: .utf8)
            var run = try publishRun()
            let both = try await run.plan(folders: ProductsFolder(products).productFolders)
            XCTAssertEqual(both.map(\.action), [.rename, .edit], "\(dialect): \(both.map(\.detail))")
            XCTAssertEqual(both.last?.detail, "price ₩9,000 on the server, ₩8,000 in product.json")
            // Killed while the server held the edit, which it made: the rerun sends nothing more.
            await killed(run, applying: both[1])
            let rerun = try await publish()
            XCTAssertEqual(rerun.map(\.action), [.unchanged], "\(dialect): \(rerun.map(\.detail))")
            let edited = try await onlyListing(dialect)
            XCTAssertEqual(edited.id, id)

            // Renamed with its photos changed too: the seller names the listing; adopting it agrees.
            try FileManager.default.moveItem(atPath: products + "/brass-lamp", toPath: products + "/old-lamp")
            try Self.lamp.replacingOccurrences(of: "Desk lamp", with: "Old lamp").write(toFile: products + "/old-lamp/product.json", atomically: true, encoding: .utf8)
            try FileManager.default.removeItem(atPath: products + "/old-lamp/IMG_1.jpg")
            try Self.fixture("orientation/Landscape_6.jpg").write(to: URL(fileURLWithPath: products + "/old-lamp/IMG_9.jpg"))
            let adopted = try await publish { $0.adoptions = ["old-lamp": id] }
            XCTAssertEqual(adopted.first?.action, .adopt, "\(dialect): \(adopted.map { $0.error ?? $0.detail })")
            XCTAssertEqual(adopted.first?.result, .done)
            // Its photos are not the folder's: items replaces them; the others name them.
            if dialect == .items {
                XCTAssertEqual(adopted.map(\.action), [.adopt, .replaceImages], "\(adopted.map(\.detail))")
                let held = await server.products[id]?.images.map(\.data)
                XCTAssertEqual(held, try photoCache.prepare([products + "/old-lamp"]).uploads().map(\.data))
            } else {
                XCTAssertTrue(adopted[0].detail.contains("; its 1 photo is not byte for byte the folder's 1: check them, and if they differ, --recreate replaces the listing"),
                              adopted[0].detail)
            }
            XCTAssertFalse(adopted.contains { $0.action == .orphaned || $0.action == .register }, "\(adopted.map(\.action))")
            XCTAssertEqual(try PublishLedger.load(from: products).entries(on: baseURL).map(\.folder), ["old-lamp"])
            let handedOver = try await onlyListing(dialect)
            XCTAssertEqual(handedOver.id, id)
            try FileManager.default.removeItem(atPath: products)
        }
    }

    /// Two folders sharing their photos (sizes of one shirt), renamed together: each is its own
    /// listing's by its `product.json`; nothing is registered and nothing orphaned.
    func testFoldersSharingPhotosRenamedTogetherKeepTheirListings() async throws {
        try await start(.openmarket)
        for size in ["S", "M"] {
            _ = try productFolder("shirt-\(size)", photos: ["photos/DSCN0010.jpg"],
                                  json: #"{"name":"Linen shirt \#(size)","description":"A linen shirt, size \#(size).","price":30000,"currency":"KRW","stock":2}"#)
        }
        _ = try await publish()
        let listed = await server.products.count
        XCTAssertEqual(listed, 2)
        for size in ["S", "M"] { try FileManager.default.moveItem(atPath: products + "/shirt-\(size)", toPath: products + "/linen-\(size)") }
        let renamed = try await publish()
        XCTAssertEqual(renamed.filter { $0.action == .rename }.map(\.folder).sorted(), ["linen-M", "linen-S"], "\(renamed.map { "\($0.folder) \($0.action)" })")
        XCTAssertFalse(renamed.contains { $0.action == .register || $0.action == .orphaned }, "\(renamed.map(\.action))")
        let after = await server.products.count
        XCTAssertEqual(after, 2)
    }
}

import Foundation
import ImagePipeline
import MarketUploader
import TestSupport
import XCTest

/// What a seller's product folder means is one rule, whichever command reads it: the photos directly
/// in it, each a shape a listing can show; files that look like photos but are not read are named;
/// and the publish record follows listings deleted from the server.
final class ProductFolderRuleTests: CommandLineTestCase {
    /// Spares moved into `lamp/unused/` are neither uploaded nor counted, and every command says so.
    func testPhotosInAProductsSubfolderAreNeverUploaded() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("lamp", photos: (1...5).map { "orientation/Landscape_\($0).jpg" })
        try FileManager.default.createDirectory(atPath: folder + "/unused", withIntermediateDirectories: true)
        for name in ["spare-1.jpg", "spare-2.jpg"] {
            try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/unused/" + name)
        }
        let published = try tool(["publish", root + "/products"])
        XCTAssertEqual(published.status, 0, published.stdout + published.stderr)
        XCTAssertTrue(published.stderr.contains("lamp: photos in its subfolders (unused) are not read"), published.stderr)
        let stored = await server.products.values.first?.images.count
        XCTAssertEqual(stored, 5, "the five photos in the folder, not the spares")
        let prepared = try CommandLineTool.run(["prepare", root + "/products", "--out", root + "/out"])
        XCTAssertTrue(prepared.stderr.contains("photos in its subfolders (unused) are not read"), prepared.stderr)
    }

    /// A photo that is a link to a file outside its folder, and a product folder that is a link to a
    /// folder outside the products folder, are named and not read by any command: what publish uploads
    /// is what the folder holds. A link inside the folder is read as usual.
    func testLinksOutOfTheFolderAreRefusedByEveryCommand() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let outside = root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: outside + "/private", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: outside + "/id-card.jpg")
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: outside + "/private/IMG_1.jpg")
        try #"{"name":"Private","description":"Not a product at all.","price":1000,"stock":1}"#.write(toFile: outside + "/private/product.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/IMG_2.jpg", withDestinationPath: outside + "/id-card.jpg")
        try FileManager.default.createDirectory(atPath: folder + "/originals", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/flowers.jpeg"), toPath: folder + "/originals/flowers.jpeg")
        try FileManager.default.createSymbolicLink(atPath: folder + "/IMG_3.jpg", withDestinationPath: "originals/flowers.jpeg")
        try FileManager.default.createSymbolicLink(atPath: products + "/private", withDestinationPath: outside + "/private")
        let refusedPhoto = "mug/IMG_2.jpg: is a link to \(FileStatus.realPath(outside)!)/id-card.jpg, outside its folder, and is not read"

        let published = try tool(["publish", products])
        XCTAssertEqual(published.status, 0, published.stdout + published.stderr)
        XCTAssertTrue(published.stderr.contains(refusedPhoto.dropFirst("mug/".count)), published.stderr)
        XCTAssertTrue(published.stderr.contains("warning: private: is a link to"), published.stderr)
        let listed = await server.products.values.map { ($0.fields["name"] ?? "", $0.images.count) }
        XCTAssertEqual(listed.map(\.0), ["Product mug"], "the linked folder is not listed")
        XCTAssertEqual(listed.first?.1, 2, "IMG_1 and IMG_3, a link inside the folder, not the linked ID card")

        for command in [["prepare", products, "--out", root + "/out"], ["thumbs", products, "--out", root + "/thumbs"]] {
            let run = try CommandLineTool.run(command)
            XCTAssertTrue(run.stderr.contains(refusedPhoto), "\(command[0]): \(run.stderr)")
            let written = FileManager.default.subpaths(atPath: command[3])?.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".json") } ?? []
            XCTAssertFalse(written.contains { $0.contains("IMG_2") || $0.contains("private") }, "\(command[0]) wrote \(written)")
        }
        let preview = try startServiceProcess([products, "--cache", root + "/cache"], command: "preview")
        let page = String(decoding: try await preview.get("/").body, as: UTF8.self)
        XCTAssertFalse(page.contains("Private"), page)
        let product = String(decoding: try await preview.get("/product/mug").body, as: UTF8.self)
        XCTAssertTrue(product.contains("IMG_2.jpg: is a link to"), "named among what to fix: \(product)")
        XCTAssertFalse(product.contains("IMG_2.jpg\""), "and neither prepared nor shown: \(product)")
    }

    /// RAW, JPEG 2000 and a JPEG with the wrong extension are named once with what they are (and in
    /// `--json`); notes and `.DS_Store` stay quiet.
    func testPhotoLikeFilesThatAreNotReadAreNamed() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        try Data([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A]).write(to: URL(fileURLWithPath: folder + "/relax.jp2"))
        try Data([0x49, 0x49, 0x2A, 0x00, 0x08]).write(to: URL(fileURLWithPath: folder + "/DSC_0001.dng"))
        try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg"))).write(to: URL(fileURLWithPath: folder + "/photo.bak"))
        try Data("handle with care".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try Data([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]).write(to: URL(fileURLWithPath: folder + "/.DS_Store"))

        let published = try tool(["publish", root + "/products", "--dry-run"])
        for expected in ["mug: relax.jp2: a JPEG 2000 image is not read", "mug: DSC_0001.dng: a DNG raw photo is not read",
                         "mug: photo.bak: a JPEG photo under another extension is not read"] {
            XCTAssertTrue(published.stderr.contains(expected), "\(expected) in:\n\(published.stderr)")
        }
        XCTAssertFalse(published.stderr.contains("notes.txt") || published.stderr.contains("DS_Store"), published.stderr)
        let json = try CommandLineTool.run(["prepare", root + "/products", "--out", root + "/out", "--json"])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((report["skipped"] as? [String])?.map { ($0 as NSString).lastPathComponent }.sorted(),
                       ["DSC_0001.dng", "photo.bak", "relax.jp2"], json.stdout)
    }

    /// A blocked product names every problem at once (fields, rules, a broken photo) and keeps its
    /// warnings (a file not read, photos in a subfolder) on stderr and in `--json`; a folder with a
    /// `product.json` and no photos is blocked with what it lacks, not skipped.
    func testABlockedProductNamesEveryProblemAndKeepsItsWarnings() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg", "photos/jolla.jpg"], json: #"{"name":"Mu","price":-5}"#)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: folder + "/IMG_3.jpg"))
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/relax.jp2")
        try FileManager.default.createDirectory(atPath: folder + "/more", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/more/IMG_9.jpg")
        try FileManager.default.createDirectory(atPath: products + "/empty", withIntermediateDirectories: true)
        try #"{"name":"Empty","description":"No photos yet, just words.","price":1000,"stock":1}"#.write(toFile: products + "/empty/product.json", atomically: true, encoding: .utf8)

        let plain = try tool(["publish", products])
        XCTAssertEqual(plain.status, 1)
        let problems = ["a product needs description, stock", "name must be 3–100 characters (it has 2)", "price must be 0 or more",
                        "IMG_3.jpg: not a supported image"]
        let warnings = ["relax.jp2: a JPEG 2000 image is not read", "photos in its subfolders (more) are not read"]
        for problem in problems { XCTAssertTrue(plain.stdout.contains(problem), "\(problem): \(plain.stdout)") }
        XCTAssertFalse(plain.stdout.contains("give --"), "publish has no field flags: \(plain.stdout)")
        for warning in warnings { XCTAssertTrue(plain.stderr.contains("warning: mug: " + warning), "\(warning): \(plain.stderr)") }
        XCTAssertTrue(plain.stdout.contains("empty") && plain.stdout.contains("no photos: a product needs 1 to 5"), plain.stdout)

        let json = try tool(["publish", products, "--json"])
        let steps = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let mug = try XCTUnwrap(steps.first { $0["folder"] as? String == "mug" })
        XCTAssertEqual(mug["action"] as? String, "blocked")
        for problem in problems { XCTAssertTrue((mug["detail"] as? String)?.contains(problem) == true, "\(problem): \(mug)") }
        let listed = mug["warnings"] as? [String] ?? []
        for warning in warnings { XCTAssertTrue(listed.contains { $0.hasPrefix(warning) }, "\(warning): \(listed)") }
        XCTAssertEqual(steps.first { $0["folder"] as? String == "empty" }?["action"] as? String, "blocked")
        let count = await server.products.count
        XCTAssertEqual(count, 0)
    }

    /// The same photo twice under two names is uploaded once, and an animation is named as the still
    /// it becomes (GIF here; an animated WebP takes the same path).
    func testADuplicatePhotoIsUploadedOnceAndAnAnimationIsNamed() async throws {
        _ = try await startServer(.openmarket)
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg", "photos/DSCN0010.jpg", "generated/animated.gif"])
        let published = try tool(["publish", products])
        XCTAssertEqual(published.status, 0, published.stdout + published.stderr)
        XCTAssertTrue(published.stderr.contains("warning: mug: IMG_2.jpg is the same photo as IMG_1.jpg; uploaded once"), published.stderr)
        XCTAssertTrue(published.stderr.contains("IMG_3.gif: has ") && published.stderr.contains("frames or pages (an animation, say); only the first is kept"),
                      published.stderr)
        let stored = await server.products.values.first?.images.count
        XCTAssertEqual(stored, 2, "IMG_1 and the GIF's first frame")
    }

    /// A blurry photo is a warning (on stderr and in `--json`) and the product is listed; a photo
    /// that looks like another product's is named with it; `--strict` blocks the blurry one instead.
    func testPhotosThatLookBadAreWarnedAndStrictBlocksThem() async throws {
        _ = try await startServer(.openmarket)
        let mug = try productFolder("a-mug", photos: ["photos/2569067123_aca715a2ee_o.jpg"])
        try DegradedPhoto.make(from: "photos/DSCN0010.jpg", to: mug + "/IMG_2.jpg", .blur(sigma: 2))
        let cup = try productFolder("b-cup", photos: [])
        try DegradedPhoto.make(from: "photos/2569067123_aca715a2ee_o.jpg", to: cup + "/IMG_1.jpg", .copy(scale: 0.4, quality: 60))

        let strict = try tool(["publish", products, "--strict", "--dry-run", "--json"])
        XCTAssertEqual(strict.status, 1, strict.stderr)
        let planned = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(planned.first?["action"] as? String, "blocked")
        XCTAssertTrue((planned.first?["detail"] as? String)?.contains("IMG_2.jpg: looks blurry") == true, "\(planned)")

        let published = try tool(["publish", products, "--json"])
        XCTAssertEqual(published.status, 0, published.stderr)
        XCTAssertTrue(published.stderr.contains("warning: a-mug: IMG_2.jpg: looks blurry"), published.stderr)
        XCTAssertTrue(published.stderr.contains("warning: b-cup: IMG_1.jpg looks like a-mug/IMG_1.jpg"), published.stderr)
        let steps = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue((steps.first?["warnings"] as? [String])?.contains { $0.hasPrefix("IMG_2.jpg: looks blurry") } == true, "\(steps)")
        let listed = await server.products.count
        XCTAssertEqual(listed, 2, "warnings do not block")
    }

    /// A postage stamp or a strip blocks its product with the reason (what preview lists to fix);
    /// `--allow-small` lists it anyway.
    func testOddShapesBlockPublishingUnlessAllowed() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("stamp", photos: ["photos/DSCN0010.jpg"])
        var spec = RenderSpec()
        (spec.width, spec.height) = (50, 50)
        let tiny = try ImageRenderer(spec: spec).render(.file(Fixture.path("photos/jolla.jpg")), maxPixels: 100_000_000)
        try tiny.data.write(to: URL(fileURLWithPath: folder + "/IMG_2.jpg"))
        let blocked = try tool(["publish", root + "/products"])
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.stdout.contains("IMG_2.jpg: only 50×38 pixels, too small to show a product"), blocked.stdout)
        XCTAssertTrue(blocked.stdout.contains("(--allow-small lists it anyway)"), blocked.stdout)
        XCTAssertTrue(blocked.stdout.contains("Plan: 1 blocked; the rest done."), "blocked is not also counted as failed: \(blocked.stdout)")
        XCTAssertFalse(blocked.stderr.contains("too small"), "named once, in the plan: \(blocked.stderr)")
        var count = await server.products.count
        XCTAssertEqual(count, 0)
        let allowed = try tool(["publish", root + "/products", "--allow-small"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("warning: stamp: IMG_2.jpg: only 50×38 pixels"), allowed.stderr)
        XCTAssertEqual(allowed.stderr.components(separatedBy: "only 50×38 pixels").count - 1, 1, "named once: \(allowed.stderr)")
        count = await server.products.count
        XCTAssertEqual(count, 1)
    }

    /// After `delete`, publish does not say "unchanged" for a listing that is gone: with `--products`
    /// delete forgets it in the record; without, publish finds the 404 and registers it again.
    func testADeletedListingIsRegisteredAgain() async throws {
        _ = try await startServer(.marketTraining)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"])
        let products = root + "/products"
        XCTAssertEqual(try tool(["publish", products], dialect: .marketTraining).status, 0)
        let first = try await onlyID()
        let deleted = try tool(["delete", String(first), "--yes", "--products", products], dialect: .marketTraining)
        XCTAssertTrue(deleted.stdout.contains("forgot product \(first) in the publish record (lamp)"), deleted.stdout + deleted.stderr)
        let again = try tool(["publish", products], dialect: .marketTraining)
        XCTAssertTrue(again.stdout.contains("Plan: 1 to register; done."), again.stdout)
        let second = try await onlyID()
        XCTAssertNotEqual(second, first)

        // Deleted elsewhere (the web, another tool): the record still names it; an hour later,
        // publish asks the server, hears 404 and registers the folder again.
        XCTAssertEqual(try tool(["delete", String(second), "--yes"], dialect: .marketTraining).status, 0)
        let ledgerPath = products + "/.openmarket-published.json"
        let ledger = try String(contentsOfFile: ledgerPath, encoding: .utf8)
        let backdated = try NSRegularExpression(pattern: #""at" : "[^"]+""#)
            .stringByReplacingMatches(in: ledger, range: NSRange(ledger.startIndex..., in: ledger), withTemplate: #""at" : "2026-01-01T00:00:00Z""#)
        try backdated.write(toFile: ledgerPath, atomically: true, encoding: .utf8)
        let found = try tool(["publish", products], dialect: .marketTraining)
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.contains("product \(second) is gone from the server: register again"), found.stdout)
        let third = try await onlyID()
        XCTAssertNotEqual(third, second)
        XCTAssertTrue(try tool(["publish", products], dialect: .marketTraining).stdout.contains("1 unchanged"))
    }

    /// One bad key does not hide the good fields on the preview; a record of several servers is
    /// named instead of the publish state silently missing.
    func testPreviewShowsGoodFieldsBesideABadKeyAndNamesTheServersRecorded() async throws {
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"],
                              json: #"{"name":"Desk lamp","description":"Brass desk lamp, 40 cm.","price":12000,"stock":3,"colour":"red"}"#)
        try FileManager.default.copyItem(atPath: Fixture.path("crafted/strip-1x20000.png"), toPath: root + "/products/lamp/strip.png")
        let ledger: [String: Any] = ["entries": [
            "http://127.0.0.1:9|lamp": ["state": "registered", "productID": 1, "at": "2026-11-01T00:00:00Z"],
            "https://openmarket.yagom-academy.kr|lamp": ["state": "registered", "productID": 2, "at": "2026-11-01T00:00:00Z"],
        ]]
        try JSONSerialization.data(withJSONObject: ledger).write(to: URL(fileURLWithPath: root + "/products/.openmarket-published.json"))
        let preview = try startServiceProcess([root + "/products", "--cache", root + "/cache"], command: "preview")
        let page = String(decoding: try await preview.get("/").body, as: UTF8.self)
        for expected in ["₩12,000", "3 in stock", "2 problems"] {
            XCTAssertTrue(page.contains(expected), "\(expected) in:\n\(page)")
        }
        XCTAssertFalse(page.contains("no price"), page)
        let product = String(decoding: try await preview.get("/product/lamp").body, as: UTF8.self)
        XCTAssertTrue(product.contains("colour") && product.contains("is not a product key"), product)
        XCTAssertTrue(product.contains(">strip.png: 1×2048 is 2048:1"), "the photo's warning once, named by its file: \(product)")
        XCTAssertFalse(product.contains(root + "/products/lamp/strip.png"), "no full path on the page")
        XCTAssertTrue(preview.logText.contains("the publish record has 2 servers (http://localhost:9, https://openmarket.yagom-academy.kr): pass --server"),
                      preview.logText)
    }

    /// `prepare` of photos that all fail makes no output folder holding only records.
    func testPrepareOfOnlyFailingPhotosLeavesNoOutputFolder() throws {
        let result = try CommandLineTool.run(["prepare", Fixture.path("crafted/zero-size.jpg"), "--out", root + "/out"])
        XCTAssertEqual(result.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/out"), "no --out for nothing made")
    }

    private func onlyID() async throws -> Int {
        let ids = await server.products.keys
        XCTAssertEqual(ids.count, 1)
        return try XCTUnwrap(ids.first)
    }
}

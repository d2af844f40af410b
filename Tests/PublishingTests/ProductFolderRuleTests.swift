import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// What a seller's product folder means when it is published: the photos directly in it, each a
/// shape a listing can show; files that look like photos but are not read, and links out of the
/// folder, are named; every problem of a blocked folder is named at once, with its warnings.
final class ProductFolderRuleTests: PublishingTestCase {
    /// Spares moved into `lamp/unused/` are neither uploaded nor counted, and the step says so.
    func testPhotosInAProductsSubfolderAreNeverUploaded() async throws {
        try await start()
        let folder = try productFolder("lamp", photos: (1...5).map { "orientation/Landscape_\($0).jpg" })
        try FileManager.default.createDirectory(atPath: folder + "/unused", withIntermediateDirectories: true)
        for name in ["spare-1.jpg", "spare-2.jpg"] {
            try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/unused/" + name)
        }
        let steps = try await publish()
        XCTAssertEqual(steps.map(\.result), [.done], "\(steps.map { $0.error ?? "" })")
        XCTAssertTrue(steps[0].warnings.contains { $0.hasPrefix("photos in its subfolders (unused) are not read") }, "\(steps[0].warnings)")
        let stored = await server.products.values.first?.images.count
        XCTAssertEqual(stored, 5, "the five photos in the folder, not the spares")
    }

    /// A photo that is a link to a file outside its folder, and a product folder that is a link to a
    /// folder outside the products folder, are named and not read: what is uploaded is what the folder
    /// holds. A link inside the folder is read as usual.
    func testLinksOutOfTheFolderAreNamedAndNotRead() async throws {
        try await start()
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let outside = root + "/elsewhere"
        try Fixture.plantLinkTargets(outside: outside)
        try FileManager.default.createSymbolicLink(atPath: folder + "/IMG_2.jpg", withDestinationPath: outside + "/id-card.jpg")
        try FileManager.default.createDirectory(atPath: folder + "/originals", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/flowers.jpeg"), toPath: folder + "/originals/flowers.jpeg")
        try FileManager.default.createSymbolicLink(atPath: folder + "/IMG_3.jpg", withDestinationPath: "originals/flowers.jpeg")
        try FileManager.default.createSymbolicLink(atPath: products + "/private", withDestinationPath: outside + "/private")

        let productsFolder = ProductsFolder(products)
        XCTAssertEqual(productsFolder.productFolders.map { ($0 as NSString).lastPathComponent }, ["mug"])
        XCTAssertTrue(productsFolder.warnings.contains { $0.hasPrefix("private: is a link to") }, "\(productsFolder.warnings)")
        let steps = try await publish()
        XCTAssertEqual(steps.map(\.result), [.done], "\(steps.map { $0.error ?? "" })")
        let refused = "IMG_2.jpg: is a link to \(FileStatus.realPath(outside)!)/id-card.jpg, outside its folder, and is not read"
        XCTAssertTrue(steps[0].warnings.contains { $0.hasPrefix(refused) }, "\(steps[0].warnings)")
        let listed = await server.products.values.map { ($0.fields["name"] ?? "", $0.images.count) }
        XCTAssertEqual(listed.map(\.0), ["Product mug"], "the linked folder is not listed")
        XCTAssertEqual(listed.first?.1, 2, "IMG_1 and IMG_3, a link inside the folder, not the linked ID card")
    }

    /// RAW, JPEG 2000 and a JPEG with the wrong extension are named with what they are; notes and
    /// `.DS_Store` stay quiet.
    func testPhotoLikeFilesThatAreNotReadAreNamed() async throws {
        try await start()
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        try Data([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A]).write(to: URL(fileURLWithPath: folder + "/relax.jp2"))
        try Data([0x49, 0x49, 0x2A, 0x00, 0x08]).write(to: URL(fileURLWithPath: folder + "/DSC_0001.dng"))
        try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg"))).write(to: URL(fileURLWithPath: folder + "/photo.bak"))
        try Data("handle with care".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try Data([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]).write(to: URL(fileURLWithPath: folder + "/.DS_Store"))

        let warnings = try await plan { $0.dryRun = true }.flatMap(\.warnings)
        for expected in ["relax.jp2: a JPEG 2000 image is not read", "DSC_0001.dng: a DNG raw photo is not read",
                         "photo.bak: a JPEG photo under another extension is not read"] {
            XCTAssertTrue(warnings.contains { $0.hasPrefix(expected) }, "\(expected) in:\n\(warnings)")
        }
        XCTAssertFalse(warnings.contains { $0.contains("notes.txt") || $0.contains("DS_Store") }, "\(warnings)")
    }

    /// A blocked product names every problem at once (fields, rules, a broken photo) and keeps its
    /// warnings (a file not read, photos in a subfolder); a folder with a `product.json` and no photos
    /// is blocked with what it lacks, not skipped.
    func testABlockedProductNamesEveryProblemAndKeepsItsWarnings() async throws {
        try await start()
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg", "photos/jolla.jpg"], json: #"{"name":"Mu","price":-5}"#)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: folder + "/IMG_3.jpg"))
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/relax.jp2")
        try FileManager.default.createDirectory(atPath: folder + "/more", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("photos/jolla.jpg"), toPath: folder + "/more/IMG_9.jpg")
        try FileManager.default.createDirectory(atPath: products + "/empty", withIntermediateDirectories: true)
        try #"{"name":"Empty","description":"No photos yet, just words.","price":1000,"stock":1}"#.write(toFile: products + "/empty/product.json", atomically: true, encoding: .utf8)

        let steps = try await publish()
        XCTAssertEqual(steps.map(\.folder), ["empty", "mug"])
        XCTAssertEqual(steps.map(\.action), [.blocked, .blocked])
        XCTAssertTrue(steps.allSatisfy(\.isUnresolved))
        let mug = try XCTUnwrap(steps.step("mug"))
        for problem in ["a product needs description, stock", "name must be 3–100 characters (it has 2)", "price must be 0 or more",
                        "IMG_3.jpg: not a supported image"] {
            XCTAssertTrue(mug.detail.contains(problem), "\(problem): \(mug.detail)")
        }
        XCTAssertFalse(mug.detail.contains("give --"), "publishing has no field flags: \(mug.detail)")
        for warning in ["relax.jp2: a JPEG 2000 image is not read", "photos in its subfolders (more) are not read"] {
            XCTAssertTrue(mug.warnings.contains { $0.hasPrefix(warning) }, "\(warning): \(mug.warnings)")
        }
        XCTAssertTrue(steps.step("empty")?.detail.contains("no photos: a product needs 1 to 5") == true, "\(steps.map(\.detail))")
        let count = await server.products.count
        XCTAssertEqual(count, 0)
    }

    /// The same photo twice under two names is uploaded once, and an animation is named as the still
    /// it becomes (GIF here; an animated WebP takes the same path).
    func testADuplicatePhotoIsUploadedOnceAndAnAnimationIsNamed() async throws {
        try await start()
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg", "photos/DSCN0010.jpg", "generated/animated.gif"])
        let steps = try await publish()
        XCTAssertEqual(steps.map(\.result), [.done], "\(steps.map { $0.error ?? "" })")
        let warnings = steps[0].warnings
        XCTAssertTrue(warnings.contains("IMG_2.jpg is the same photo as IMG_1.jpg; only IMG_1.jpg is uploaded"), "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.hasPrefix("IMG_3.gif: has ") && $0.contains("frames or pages (an animation, say); only the first is kept") },
                      "\(warnings)")
        let stored = await server.products.values.first?.images.count
        XCTAssertEqual(stored, 2, "IMG_1 and the GIF's first frame")
    }

    /// A blurry photo is a warning and the product is listed; a photo that looks like another
    /// product's is named with it; strict looks block the blurry one instead.
    func testPhotosThatLookBadAreWarnedAndStrictLooksBlockThem() async throws {
        try await start()
        let mug = try productFolder("a-mug", photos: ["photos/2569067123_aca715a2ee_o.jpg"])
        let cup = try productFolder("b-cup", photos: [])
        try DegradedPhoto.make([("photos/DSCN0010.jpg", mug + "/IMG_2.jpg", .blur(sigma: 2)),
                                ("photos/2569067123_aca715a2ee_o.jpg", cup + "/IMG_1.jpg", .copy(scale: 0.4, quality: 60))])

        let strict = try await plan { ($0.strictLooks, $0.dryRun) = (true, true) }
        XCTAssertEqual(strict.step("a-mug")?.action, .blocked)
        XCTAssertTrue(strict.step("a-mug")?.detail.contains("IMG_2.jpg: looks blurry") == true, "\(strict.map(\.detail))")

        let published = try await publish()
        XCTAssertFalse(published.contains(where: \.isUnresolved), "\(published.map { $0.error ?? $0.detail })")
        XCTAssertTrue(published.step("a-mug")?.warnings.contains { $0.hasPrefix("IMG_2.jpg: looks blurry") } == true, "\(published.map(\.warnings))")
        XCTAssertTrue(published.step("b-cup")?.warnings.contains { $0.hasPrefix("IMG_1.jpg looks like a-mug/IMG_1.jpg") } == true,
                      "\(published.map(\.warnings))")
        let listed = await server.products.count
        XCTAssertEqual(listed, 2, "warnings do not block")
    }

    /// A marketplace's rules (`--listing`) are the photo's warnings in publish, each named with the
    /// photo and the measure; `--strict` blocks on them, and says that without it they are warnings.
    func testListingRulesAreWarningsAndStrictBlocksOnThem() async throws {
        try await start()
        prepareOptions.listing = "amazon"
        _ = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let expected = ["IMG_1.jpg: long side 640 px, Amazon wants 1000 px or more",
                        "IMG_1.jpg: background 0% pure white at the edges, Amazon wants pure white (RGB 255)"]
        let strict = try await plan { ($0.strictLooks, $0.dryRun) = (true, true) }
        XCTAssertEqual(strict.step("mug")?.action, .blocked)
        let detail = strict.step("mug")?.detail ?? ""
        for problem in expected { XCTAssertTrue(detail.contains(problem), detail) }
        XCTAssertTrue(detail.contains("(without --strict, a marketplace's photo rules are warnings)"), detail)

        let published = try await publish()
        XCTAssertEqual(published.map(\.result), [.done], "\(published.map { $0.error ?? "" })")
        XCTAssertEqual(published[0].warnings.filter { $0.contains("Amazon") }, expected)
    }

    /// A postage stamp blocks its product with the reason; allowing odd shapes lists it, with the
    /// reason as a warning named once.
    func testOddShapesBlockPublishingUnlessAllowed() async throws {
        try await start()
        let folder = try productFolder("stamp", photos: ["photos/DSCN0010.jpg"])
        var spec = RenderSpec()
        (spec.width, spec.height) = (50, 50)
        let tiny = try ImageRenderer(spec: spec).render(.file(Fixture.path("photos/jolla.jpg")), maxPixels: 100_000_000)
        try tiny.data.write(to: URL(fileURLWithPath: folder + "/IMG_2.jpg"))
        let blocked = try await publish()
        XCTAssertEqual(blocked.map(\.action), [.blocked])
        XCTAssertTrue(blocked[0].detail.contains("IMG_2.jpg: only 50×38 pixels, too small to show a product"), blocked[0].detail)
        XCTAssertTrue(blocked[0].detail.contains("(--allow-small lists it anyway)"), blocked[0].detail)
        XCTAssertFalse(blocked[0].warnings.contains { $0.contains("too small") }, "named once, as the problem: \(blocked[0].warnings)")
        var count = await server.products.count
        XCTAssertEqual(count, 0)

        let allowed = try await publish { $0.allowOddShapes = true }
        XCTAssertEqual(allowed.map(\.result), [.done], "\(allowed.map { $0.error ?? "" })")
        XCTAssertEqual(allowed[0].warnings.filter { $0.contains("only 50×38 pixels") }.count, 1, "named once: \(allowed[0].warnings)")
        count = await server.products.count
        XCTAssertEqual(count, 1)
    }

    /// A sparse 1.5 GB `product.json` is refused by its size, not read.
    func testAHugeProductFileIsRefusedBeforeItIsRead() async throws {
        try await start()
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        XCTAssertEqual(truncate(folder + "/product.json", 1_610_612_736), 0)
        // The end-of-test scan for secrets reads every file whole.
        defer { try? FileManager.default.removeItem(atPath: folder + "/product.json") }
        let started = Date()
        let steps = try await plan { $0.dryRun = true }
        XCTAssertEqual(steps.map(\.action), [.blocked])
        XCTAssertTrue(steps[0].detail.contains("is 1,610,612,736 bytes; a product.json is at most 1,048,576"), steps[0].detail)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}

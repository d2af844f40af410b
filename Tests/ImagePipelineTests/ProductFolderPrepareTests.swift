import Foundation
@testable import ImagePipeline
import TestSupport
import XCTest

/// `prepare` and `thumbs` of a folder of product folders read what `publish` uploads: the photos
/// directly in each product folder. Photos in a product's subfolders, links out of a folder and
/// files that look like photos but are not read are named, and never become outputs.
final class ProductFolderPrepareTests: FolderTestCase {
    private func process(prepare: PrepareOptions? = PrepareOptions(), thumbnails: ThumbnailOptions? = nil, into folder: String? = nil) throws -> FolderReport {
        var job = FolderJob(inputs: [input], outputFolder: folder ?? output, prepare: prepare, thumbnails: thumbnails)
        job.jobs = 2
        return try FolderProcessor(job: job).run()
    }

    func testPhotosInAProductsSubfolderAreNamedAndNotPrepared() throws {
        try copy("photos/DSCN0010.jpg", to: "lamp/IMG_1.jpg")
        try copy("photos/jolla.jpg", to: "lamp/unused/spare-1.jpg")
        let report = try process()
        XCTAssertTrue(report.warnings.contains { $0.contains("photos in its subfolders (unused) are not read") }, "\(report.warnings)")
        XCTAssertEqual(report.written.map(\.output), ["lamp/IMG_1.jpg"])
    }

    /// A photo linked from outside its folder and a product folder linked from outside the products
    /// folder are named and neither prepared nor thumbnailed; a link inside the folder is read.
    func testLinksOutOfTheFolderAreNamedAndNeverRead() throws {
        try copy("photos/DSCN0010.jpg", to: "mug/IMG_1.jpg")
        try copy("photos/flowers.jpeg", to: "mug/originals/flowers.jpeg")
        let outside = root + "/elsewhere"
        try Fixture.plantLinkTargets(outside: outside)
        try FileManager.default.createSymbolicLink(atPath: input + "/mug/IMG_2.jpg", withDestinationPath: outside + "/id-card.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/mug/IMG_3.jpg", withDestinationPath: "originals/flowers.jpeg")
        try FileManager.default.createSymbolicLink(atPath: input + "/private", withDestinationPath: outside + "/private")
        let refused = "mug/IMG_2.jpg: is a link to \(FileStatus.realPath(outside)!)/id-card.jpg, outside its folder, and is not read"

        for (name, report, folder) in [("prepare", try process(), output), ("thumbs", try process(prepare: nil, thumbnails: ThumbnailOptions(), into: root + "/thumbs"), root + "/thumbs")] {
            XCTAssertTrue(report.warnings.contains { $0.contains(refused) }, "\(name): \(report.warnings)")
            XCTAssertTrue(report.warnings.contains { $0.contains("private: is a link to") }, "\(name): \(report.warnings)")
            let written = FileManager.default.subpaths(atPath: folder)?.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".json") } ?? []
            XCTAssertFalse(written.contains { $0.contains("IMG_2") || $0.contains("private") }, "\(name) wrote \(written)")
            XCTAssertTrue(written.contains { $0.contains("IMG_3") }, "\(name): a link inside the folder is read: \(written)")
        }
    }

    /// RAW, JPEG 2000 and a JPEG under another extension are skipped by name; notes are not.
    func testPhotoLikeFilesThatAreNotReadAreSkipped() throws {
        try copy("photos/DSCN0010.jpg", to: "mug/IMG_1.jpg")
        try Data([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A]).write(to: URL(fileURLWithPath: input + "/mug/relax.jp2"))
        try Data([0x49, 0x49, 0x2A, 0x00, 0x08]).write(to: URL(fileURLWithPath: input + "/mug/DSC_0001.dng"))
        try copy("photos/jolla.jpg", to: "mug/photo.bak")
        try Data("handle with care".utf8).write(to: URL(fileURLWithPath: input + "/mug/notes.txt"))
        let report = try process()
        XCTAssertEqual(report.skipped.map { ($0 as NSString).lastPathComponent }.sorted(), ["DSC_0001.dng", "photo.bak", "relax.jp2"])
    }

    func testPreparingOnlyFailingPhotosLeavesNoOutputFolder() throws {
        var job = FolderJob(inputs: [Fixture.path("crafted/zero-size.jpg")], outputFolder: output)
        job.jobs = 1
        let report = try FolderProcessor(job: job).run()
        XCTAssertFalse(report.succeeded)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output folder for nothing made")
    }

    /// A photo and its copy, a smaller re-encoded copy in the same product and one in the next: every
    /// photo is prepared, and the run names each repeat with the photo it repeats, as `publish` and
    /// `preview` do, in `--json` too; a rerun with everything up to date names them again.
    func testDuplicatePhotosAreNamedAndEveryOneIsPrepared() throws {
        try copy("photos/DSCN0010.jpg", to: "a-mug/IMG_1.jpg")
        try copy("photos/DSCN0010.jpg", to: "a-mug/IMG_2.jpg")
        try copy("photos/jolla.jpg", to: "a-mug/IMG_3.jpg")
        try copy("photos/2569067123_aca715a2ee_o.jpg", to: "b-cup/IMG_1.jpg")
        try DegradedPhoto.make([("photos/DSCN0010.jpg", input + "/a-mug/IMG_4.jpg", .copy(scale: 0.4, quality: 60)),
                                ("photos/jolla.jpg", input + "/b-cup/IMG_2.jpg", .copy(scale: 0.4, quality: 60))])
        let expected = ["a-mug/IMG_2.jpg is the same photo as IMG_1.jpg",
                        "a-mug/IMG_4.jpg looks like IMG_1.jpg (a near-duplicate); is a different view meant?",
                        "b-cup/IMG_2.jpg looks like a-mug/IMG_3.jpg (a near-duplicate of another product's photo)"]
        let inInput = { (source: String) in source.split(separator: "/").suffix(2).joined(separator: "/") }

        let report = try process()
        XCTAssertEqual(report.written.count, 6, "every photo is prepared: \(report.failed)")
        XCTAssertEqual(report.duplicates.map { $0.sentence(naming: inInput($0.source)) }, expected)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        XCTAssertEqual((json["duplicates"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }, ["copy", "near-duplicate", "near-duplicate"])

        let rerun = try process()
        XCTAssertEqual(rerun.upToDate.count, 6)
        XCTAssertEqual(rerun.duplicates, report.duplicates)
    }

    /// The original of a copy is the name a person made, whatever natural order or the files' ages
    /// say (`IMG_2041 copy.JPG` sorts first and is older here), then the older file (`side.jpg`, though
    /// `front.jpg` sorts first); the same bytes in
    /// another product are the same photo, not a near-duplicate. Duplicates were named backwards.
    func testACopyIsNamedAfterTheNameAPersonMade() throws {
        try copy("photos/DSCN0010.jpg", to: "a-mug/IMG_2041 copy.JPG")
        try copy("photos/DSCN0010.jpg", to: "a-mug/IMG_2041.JPG")
        try copy("photos/jolla.jpg", to: "a-mug/front.jpg")
        try copy("photos/jolla.jpg", to: "a-mug/side.jpg")
        try copy("photos/DSCN0010.jpg", to: "b-cup/IMG_1.jpg")
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        for name in ["IMG_2041 copy.JPG", "side.jpg"] {
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: input + "/a-mug/" + name)
        }
        let report = try process()
        XCTAssertEqual(report.duplicates.map { $0.sentence(naming: ($0.source as NSString).lastPathComponent) }.sorted(),
                       ["IMG_1.jpg is the same photo as a-mug/IMG_2041.JPG", "IMG_2041 copy.JPG is the same photo as IMG_2041.JPG",
                        "front.jpg is the same photo as side.jpg"])
        for name in ["IMG_2041 (1).jpg", "IMG_2041 copy 2.JPG", "IMG_2041 - Copy.jpg", "IMG_2041 (edited).heic", "IMG_2041-edited.jpg", "IMG_2041 사본.jpg"] {
            XCTAssertTrue(PhotoDuplicates.isCopyName("/x/" + name), name)
        }
        for name in ["IMG_2041.JPG", "copy.jpg", "photocopy.jpg", "mug (front).jpg"] {
            XCTAssertFalse(PhotoDuplicates.isCopyName("/x/" + name), name)
        }
    }
}

import TestSupport
import XCTest
@testable import ImagePipeline

/// Square list/grid thumbnails: sizes, crops, correctness, the index, and incremental regeneration.
final class ThumbnailTests: FolderTestCase {
    private func thumbs(_ options: ThumbnailOptions = ThumbnailOptions(), prune: Bool = false, dryRun: Bool = false,
                        prepare: PrepareOptions? = nil) throws -> FolderReport {
        var job = FolderJob(inputs: [input], outputFolder: output, prepare: prepare, thumbnails: options)
        job.prune = prune
        job.dryRun = dryRun
        return try FolderProcessor(job: job).run()
    }

    private func sizes(_ report: FolderReport, _ stem: String) -> [String: [Int]] {
        let entry = report.thumbnailsWritten.first { ($0.source as NSString).lastPathComponent.hasPrefix(stem) }
        return Dictionary(uniqueKeysWithValues: (entry?.thumbnails ?? []).map { ("\($0.variant)@\($0.scale)x", [$0.width, $0.height]) })
    }

    private func modificationDates() throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: output) where path.contains("@") {
            dates[path] = try FileManager.default.attributesOfItem(atPath: output + "/" + path)[.modificationDate] as? Date
        }
        return dates
    }

    private func readBackFile(_ relative: String) throws -> (header: ImageHeader, image: DecodedImage) {
        let path = output + "/" + relative
        return (try ImageHeader.read(file: path), try DecodedImage.decode(file: path, maxPixels: .max) { _ in (100_000, 100_000) })
    }

    func testDefaultVariantsHaveExactPixelSizesAndNames() throws {
        try copy("photos/jolla.jpg", to: "sku/jolla.jpg")
        let report = try thumbs()
        XCTAssertEqual(sizes(report, "jolla"), ["list@2x": [160, 160], "list@3x": [240, 240], "grid@2x": [400, 400], "grid@3x": [600, 600]])
        let paths = Set(report.thumbnailsWritten[0].thumbnails.map(\.path))
        XCTAssertEqual(paths, ["sku/jolla.list@2x.jpg", "sku/jolla.list@3x.jpg", "sku/jolla.grid@2x.jpg", "sku/jolla.grid@3x.jpg"])
        for thumbnail in report.thumbnailsWritten[0].thumbnails {
            let back = try readBackFile(thumbnail.path)
            XCTAssertEqual([back.image.width, back.image.height], [thumbnail.width, thumbnail.height])
        }
    }

    func testCustomVariantsAndScales() throws {
        try copy("photos/jolla.jpg", to: "sku/jolla.jpg")
        var options = ThumbnailOptions()
        options.variants = [ThumbnailVariant(name: "detail", points: 375)]
        options.scales = [1, 2, 3]
        XCTAssertEqual(sizes(try thumbs(options), "jolla"), ["detail@1x": [375, 375], "detail@2x": [750, 750], "detail@3x": [1125, 1125]])
    }

    func testAttentionKeepsAnOffCentreSubjectWhereCentreCropDoesNot() throws {
        try copy("generated/offcentre.jpg", to: "sku/attention.jpg")
        _ = try thumbs()
        let attention = try readBackFile("sku/attention.grid@2x.jpg").image
        var options = ThumbnailOptions()
        options.crop = .centre
        let centreOutput = root + "/centre"
        var job = FolderJob(inputs: [input], outputFolder: centreOutput, prepare: nil, thumbnails: options)
        job.jobs = 1
        _ = try FolderProcessor(job: job).run()
        let centre = try DecodedImage.decode(file: centreOutput + "/sku/attention.grid@2x.jpg", maxPixels: .max) { _ in (100_000, 100_000) }
        for image in [attention, centre] { XCTAssertEqual([image.width, image.height], [400, 400]) }
        // The canvas is white; the photo sits at its right edge.
        let attentionMean = try attention.mean(x: 0, y: 0, width: 400, height: 400)
        let centreMean = try centre.mean(x: 0, y: 0, width: 400, height: 400)
        XCTAssertTrue(centreMean.allSatisfy { $0 > 245 }, "centre crop sees only the white canvas: \(centreMean)")
        XCTAssertTrue(attentionMean.allSatisfy { $0 < 200 }, "attention crop finds the photo: \(attentionMean)")
    }

    func testNoCropKeepsTheAspectRatio() throws {
        try copy("photos/jolla.jpg", to: "sku/jolla.jpg")
        var options = ThumbnailOptions()
        options.crop = .none
        XCTAssertEqual(sizes(try thumbs(options), "jolla"), ["list@2x": [160, 120], "list@3x": [240, 180], "grid@2x": [400, 300], "grid@3x": [600, 450]])
    }

    func testSmallSourcesAreNeverEnlarged() throws {
        try copy("color/tifftag-photoshop.tiff", to: "sku/small.tiff")
        XCTAssertEqual(sizes(try thumbs(), "small"), ["list@2x": [160, 160], "list@3x": [211, 211], "grid@2x": [211, 211], "grid@3x": [211, 211]])
        var options = ThumbnailOptions()
        options.crop = .none
        XCTAssertEqual(sizes(try thumbs(options), "small")["grid@3x"], [317, 211])
    }

    func testThumbnailsAreUprightWhiteBehindTransparencyAndFreeOfMetadata() throws {
        try copy("orientation/Landscape_1.jpg", to: "sku/o1.jpg")
        try copy("orientation/Landscape_6.jpg", to: "sku/o6.jpg")
        try copy("alpha/alpha-layer-1-fill.png", to: "sku/cutout.png")
        try copy("photos/DSCN0010.jpg", to: "sku/gps.jpg")
        for format in [OutputFormat.jpeg, .webp] {
            var options = ThumbnailOptions()
            options.format = format
            let report = try thumbs(options)
            XCTAssertTrue(report.succeeded)
            let o1 = try readBackFile("sku/o1.grid@2x.\(format.fileExtension)").image
            let o6 = try readBackFile("sku/o6.grid@2x.\(format.fileExtension)").image
            XCTAssertLessThan(largestDifference(try o1.grid(), try o6.grid()), 15, "\(format)")
            for entry in report.thumbnailsWritten {
                for thumbnail in entry.thumbnails {
                    let data = try Data(contentsOf: URL(fileURLWithPath: output + "/" + thumbnail.path))
                    XCTAssertEqual(ContainerMetadata.kinds(in: data), [], thumbnail.path)
                    XCTAssertTrue(try readBackFile(thumbnail.path).header.metadata.isEmpty, thumbnail.path)
                }
            }
        }
        let cutout = try readBackFile("sku/cutout.list@2x.jpg")
        XCTAssertEqual(cutout.header.bands, 3)
        XCTAssertTrue(try cutout.image.mean(x: 0, y: 0, width: 6, height: 6).allSatisfy { $0 > 250 })
        XCTAssertTrue(try readBackFile("sku/cutout.list@2x.webp").header.hasAlpha, "WebP keeps transparency")
    }

    func testIndexMatchesTheFiles() throws {
        try copy("photos/jolla.jpg", to: "a/1.jpg")
        try copy("photos/DSCN0010.jpg", to: "b/2.jpg")
        _ = try thumbs()
        let index = try XCTUnwrap(ThumbnailIndex.load(from: output))
        XCTAssertEqual(index.sources.map(\.product), ["a", "b"])
        XCTAssertEqual(index.settings, ThumbnailOptions())
        for entry in index.sources {
            XCTAssertEqual(entry.thumbnails.count, 4)
            for thumbnail in entry.thumbnails {
                let attributes = try FileManager.default.attributesOfItem(atPath: output + "/" + thumbnail.path)
                XCTAssertEqual(attributes[.size] as? Int, thumbnail.bytes)
                let back = try readBackFile(thumbnail.path).image
                XCTAssertEqual([back.width, back.height], [thumbnail.width, thumbnail.height])
            }
        }
        let listed = Set(index.sources.flatMap { $0.thumbnails.map(\.path) })
        let onDisk = Set(try FileManager.default.subpathsOfDirectory(atPath: output).filter { $0.hasSuffix(".jpg") })
        XCTAssertEqual(listed, onDisk)
    }

    func testSecondRunRewritesNothingAndATouchedSourceRegeneratesOnlyItsOwn() throws {
        for n in 1...3 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        XCTAssertEqual(try thumbs().thumbnailsWritten.count, 3)
        let before = try modificationDates()
        XCTAssertEqual(before.count, 12)

        let second = try thumbs()
        XCTAssertEqual(second.thumbnailsWritten.count, 0)
        XCTAssertEqual(second.thumbnailsUpToDate, 3)
        XCTAssertEqual(try modificationDates(), before)

        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: input + "/sku/2.jpg")
        let third = try thumbs()
        XCTAssertEqual(third.thumbnailsWritten.map { ($0.source as NSString).lastPathComponent }, ["2.jpg"])
        let after = try modificationDates()
        for (path, date) in before {
            if path.hasPrefix("sku/2.") { XCTAssertNotEqual(after[path], date, path) } else { XCTAssertEqual(after[path], date, path) }
        }
    }

    func testPruneRemovesExactlyTheOrphansAndDryRunOnlyLists() throws {
        for n in 1...3 { try copy("orientation/Landscape_\(n).jpg", to: "sku/\(n).jpg") }
        _ = try thumbs()
        try FileManager.default.removeItem(atPath: input + "/sku/3.jpg")
        let unrelated = output + "/sku/notes.jpg"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: unrelated))
        // A user's own file that merely looks like a thumbnail of a variant this folder never had.
        let lookalike = output + "/sku/logo.small@2x.jpg"
        try Data("keep me too".utf8).write(to: URL(fileURLWithPath: lookalike))

        let dryRun = try thumbs(prune: true, dryRun: true)
        let expected = ["sku/3.grid@2x.jpg", "sku/3.grid@3x.jpg", "sku/3.list@2x.jpg", "sku/3.list@3x.jpg"]
        XCTAssertEqual(Set(dryRun.pruned), Set(expected))
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/sku/3.grid@2x.jpg"), "dry run deletes nothing")

        // Without --prune, orphans stay.
        _ = try thumbs()
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/sku/3.grid@2x.jpg"))

        let pruned = try thumbs(prune: true)
        XCTAssertEqual(Set(pruned.pruned), Set(expected))
        let remaining = Set(try FileManager.default.subpathsOfDirectory(atPath: output + "/sku"))
        XCTAssertEqual(remaining.filter { $0.hasPrefix("3.") }, [])
        XCTAssertEqual(remaining.filter { $0.hasPrefix("1.") || $0.hasPrefix("2.") }.count, 8)
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated))
        XCTAssertTrue(FileManager.default.fileExists(atPath: lookalike))
        XCTAssertEqual(ThumbnailIndex.load(from: output)?.sources.count, 2)

        // Dropping a variant orphans its files.
        var options = ThumbnailOptions()
        options.variants = [ThumbnailVariant(name: "list", points: 80)]
        let narrowed = try thumbs(options, prune: true)
        XCTAssertEqual(Set(narrowed.pruned), ["sku/1.grid@2x.jpg", "sku/1.grid@3x.jpg", "sku/2.grid@2x.jpg", "sku/2.grid@3x.jpg"])
    }

    func testPrepareWithThumbsMakesBothFromOnePass() throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "sku/IMG_1.HEIC")
        let report = try thumbs(prepare: PrepareOptions())
        XCTAssertEqual(report.written.map(\.output), ["sku/IMG_1.jpg"])
        XCTAssertEqual(sizes(report, "IMG_1"), ["list@2x": [160, 160], "list@3x": [240, 240], "grid@2x": [400, 400], "grid@3x": [600, 600]])
        XCTAssertNotNil(Manifest.load(from: output))
        XCTAssertNotNil(ThumbnailIndex.load(from: output))
        XCTAssertFalse(try thumbs(prepare: PrepareOptions()).thumbnailsWritten.count > 0, "rerun is current")
    }

    func testBadPhotoFailsAloneInThumbs() throws {
        try copy("hostile/corrupted.jpg", to: "sku/bad.jpg")
        try copy("photos/flowers.jpeg", to: "sku/good.jpg")
        let report = try thumbs()
        XCTAssertEqual(report.failed.map { ($0.source as NSString).lastPathComponent }, ["bad.jpg"])
        XCTAssertEqual(report.thumbnailsWritten.count, 1)
    }

    func testDecodeBoxCoversTheLargestSquareOnTheShorterSide() {
        let options = ThumbnailOptions()
        XCTAssertEqual(options.decodeBox(uprightWidth: 4000, uprightHeight: 3000).height, 600)
        XCTAssertEqual(options.decodeBox(uprightWidth: 3000, uprightHeight: 4000).width, 600)
        var none = options
        none.crop = .none
        XCTAssertTrue(none.decodeBox(uprightWidth: 4000, uprightHeight: 3000) == (600, 600))
    }
}

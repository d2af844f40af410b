import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// The photo-look warnings through the real pipeline (libvips decode, `prepare`'s render, the C
/// measures), on the fixtures as they are and on bad shots of them made by Pillow: nothing said
/// about a good photo, each kind of bad shot caught. Benchmarks/photo-looks.sh measures the same
/// on the whole corpus.
final class PhotoLookTests: FolderTestCase {
    private func look(_ path: String) throws -> (PhotoLook, [String]) {
        let preparer = try ImagePreparer(options: PrepareOptions())
        let encoded = try preparer.encode(try preparer.decode(file: path), stem: "photo")
        return (try XCTUnwrap(encoded.look), encoded.warnings)
    }

    /// Nothing is said about the fixtures but what the README names: a pastel graphic, whose light
    /// tints read as highlights clipped into a tint, and the vignette with nothing in it
    /// (`flowers.jpeg`, and the GIF made of it), which has no sharp detail.
    func testGoodPhotosHaveNoLookProblems() throws {
        var flagged: [String] = []
        for path in Fixture.photos {
            let (look, _) = try look(path)
            if !look.problems.isEmpty { flagged.append(path.replacingOccurrences(of: Fixture.root.path + "/", with: "")) }
        }
        XCTAssertEqual(flagged, ["photos/flowers.jpeg", "alpha/5_webp_a.webp", "generated/animated.gif"])
    }

    /// Blurs as Benchmarks/blur-catch.sh measured them on the fixtures under 1024 px (so the blur
    /// is at the size `prepare` makes and measures): from the sigma each is caught at, said as
    /// blurry, or as no sharp detail where its edges grow too weak to be measured.
    func testHeavyBlursAreCaught() throws {
        let (blurry, noDetail) = ("looks blurry", "has no sharp detail")
        let cases: [(String, [(ClosedRange<Int>, String)])] = [
            ("alpha/16-bit-grey-alpha.png", [(2...8, noDetail)]),
            ("alpha/5_webp_a.webp", [(2...4, blurry), (6...8, noDetail)]),
            ("alpha/Flag_of_the_Netherlands-alpha.png", [(1...7, blurry), (8...8, noDetail)]),
            ("color/tifftag-photoshop.tiff", [(2...6, blurry), (8...8, noDetail)]),
        ]
        let shots = cases.flatMap { fixture, sigmas in
            sigmas.flatMap { range, expected in range.map { (fixture: fixture, sigma: $0, expected: expected) } }
        }
        let paths = shots.indices.map { root + "/blurred-\($0).jpg" }
        try DegradedPhoto.make(zip(shots, paths).map { ($0.fixture, $1, .blur(sigma: Double($0.sigma))) })
        for (shot, path) in zip(shots, paths) {
            let (look, _) = try look(path)
            // Sharpness is said first; the pastel graphic is also blown out.
            XCTAssertEqual(look.problems.first.map { String($0.prefix(shot.expected.count)) }, shot.expected, "\(shot.fixture) blurred by \(shot.sigma): \(look)")
        }
    }

    /// A blank grey frame has no sharp detail; a plain product on white does, though so few of its
    /// pixels are edges that they are too few to judge their width by (the 99.5th percentile).
    func testABlankFrameHasNoSharpDetailAndAPlainStudioShotDoes() throws {
        let frame = root + "/grey.png", studio = root + "/studio.png"
        try GeneratedImage.grey(width: 1200, height: 900, to: frame)
        try GeneratedImage.studioShot(width: 1600, height: 1200, to: studio)
        XCTAssertEqual(try look(frame).0.problems.map { String($0.prefix(19)) }, ["has no sharp detail", "looks too dark (its"])
        let (plain, _) = try look(studio)
        XCTAssertLessThan(plain.edgeStrength, PhotoLook.Thresholds.minEdgeStrength, "its edges are few: \(plain)")
        XCTAssertEqual(plain.problems, [], "\(plain)")
    }

    /// Blur of 2 px, −2 EV and +2 EV at 1024 px on the photos with edges to judge, each named with its
    /// own warning and no other; the sharp copy at that size has none.
    func testEachBadShotIsCaught() throws {
        let cases: [(DegradedPhoto.Kind, String)] = [(.sharp, ""), (.blur(sigma: 2), "looks blurry"), (.exposure(stops: -2), "looks too dark"),
                                                     (.exposure(stops: 2), "looks blown out")]
        let shots = ["photos/DSCN0010.jpg", "photos/jolla.jpg", "photos/2569067123_aca715a2ee_o.jpg", "color/Channel_digital_image_CMYK_color.jpg"]
            .flatMap { fixture in cases.map { (fixture: fixture, kind: $0.0, expected: $0.1) } }
        let paths = shots.indices.map { root + "/shot-\($0).jpg" }
        try DegradedPhoto.make(zip(shots, paths).map { ($0.fixture, $1, $0.kind) })
        for (shot, path) in zip(shots, paths) {
            let (look, warnings) = try look(path)
            XCTAssertEqual(look.problems.map { String($0.prefix(shot.expected.count)) }, shot.expected.isEmpty ? [] : [shot.expected], "\(shot.fixture) \(shot.kind): \(look)")
            XCTAssertEqual(warnings.filter { $0.hasPrefix("looks ") }, look.problems, "the problems are the photo's warnings")
        }
    }

    /// A copy at 40% re-encoded at quality 60 is the same picture; different photos are not.
    func testNearDuplicatesAreToldFromDifferentPhotos() throws {
        let originals = ["photos/DSCN0010.jpg", "photos/jolla.jpg", "photos/2569067123_aca715a2ee_o.jpg", "color/concert.jpg",
                         "photos/iphone_13_pro_max.HEIC", "alpha/alpha-layer-1-fill.png"]
        let looks = try originals.map { try look(Fixture.path($0)).0 }
        let copied = originals.indices.filter { !originals[$0].hasSuffix(".HEIC") }
        try DegradedPhoto.make(copied.map { (originals[$0], root + "/copy-\($0).jpg", .copy(scale: 0.4, quality: 60)) })
        for index in copied {
            XCTAssertTrue(try look(root + "/copy-\(index).jpg").0.resembles(looks[index]), originals[index])
        }
        for i in looks.indices {
            for j in looks.indices where j != i {
                XCTAssertFalse(looks[i].resembles(looks[j]), "\(originals[i]) and \(originals[j]) are different photos")
            }
        }
    }
}

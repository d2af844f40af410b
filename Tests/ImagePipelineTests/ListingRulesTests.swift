import Foundation
import ImagePipeline
import TestSupport
import XCTest

/// A marketplace's main-image rules (`--listing`) on the pixels `prepare` makes, through the real
/// pipeline: made cases (a product on pure white, too small, off centre, on near-white, framed by a
/// border) each named with its measure by the marketplaces that have the rule and by no other; real
/// photos on a table named for their background, never for a border they do not have.
final class ListingRulesTests: FolderTestCase {
    /// The photo prepared with `listing`: its frame and its warnings that are listing rules.
    private func prepared(_ path: String, listing: String) throws -> (PhotoFrame, [String]) {
        var options = PrepareOptions()
        options.listing = listing
        let preparer = try ImagePreparer(options: options)
        let encoded = try preparer.encode(try preparer.decode(file: path), stem: "photo")
        let frame = try XCTUnwrap(encoded.frame)
        let name = try XCTUnwrap(Marketplace.named(listing)).name
        return (frame, encoded.warnings.filter { $0.contains(name) })
    }

    private func product(_ name: String, width: Int = 1000, height: Int = 1000, box: (x: Int, y: Int, width: Int, height: Int),
                         ground: Int = 255, border: Int = 0) throws -> String {
        let path = root + "/\(name).png"
        try GeneratedImage.product(width: width, height: height, product: box, ground: ground, border: border, to: path)
        return path
    }

    /// A centred product filling 88% of a 1000 px square on pure white passes every marketplace, its
    /// box read to the pixel.
    func testAProductOnPureWhiteFillingTheFramePassesEveryMarketplace() throws {
        let path = try product("good", box: (60, 100, 880, 800))
        for marketplace in Marketplace.all {
            let (frame, problems) = try prepared(path, listing: marketplace.id)
            XCTAssertEqual(problems, [], marketplace.id)
            XCTAssertEqual(frame.pureWhiteEdge, 1)
            XCTAssertEqual(frame.border, 0)
            XCTAssertEqual(try XCTUnwrap(frame.productShare), 0.88, accuracy: 0.005)
        }
    }

    /// Each broken rule is one warning naming the measure and what the marketplace wants.
    func testEachBrokenRuleIsNamedWithItsMeasure() throws {
        let small = try product("small", box: (250, 250, 500, 500))
        XCTAssertEqual(try prepared(small, listing: "amazon").1, ["product fills 50% of the frame, Amazon wants 85% or more"])
        XCTAssertEqual(try prepared(small, listing: "coupang").1, ["product fills 50% of the frame, Coupang wants 80% or more"])
        XCTAssertEqual(try prepared(small, listing: "ebay").1, [], "eBay has no rule on the product's share")

        let offCentre = try product("off", box: (0, 100, 830, 830))
        XCTAssertEqual(try prepared(offCentre, listing: "coupang").1, ["product 8% off centre, Coupang wants it centred"])

        let nearWhite = try product("near", box: (60, 60, 880, 880), ground: 250)
        XCTAssertEqual(try prepared(nearWhite, listing: "amazon").1,
                       ["background 0% pure white at the edges (100% near-white: make it 255), Amazon wants pure white (RGB 255)"])

        let framed = try product("framed", width: 800, height: 600, box: (100, 100, 600, 400), ground: 200, border: 16)
        XCTAssertEqual(try prepared(framed, listing: "ebay").1, ["a 16 px border of #1e1e1e around it, eBay allows none"])
        XCTAssertEqual(try prepared(framed, listing: "naver").1, ["long side 800 px, Naver recommends 1000 px or more",
                                                                  "800×600 is not square, Naver recommends square (1000×1000)",
                                                                  "a 16 px border of #1e1e1e around it, Naver allows none"])
    }

    /// Photos shot on a table or a sheet are named for their background alone: the product's share
    /// cannot be told from edges that are not white, and is not guessed.
    func testAPhotoOnATableIsNamedForItsBackgroundOnly() throws {
        let (frame, problems) = try prepared(Fixture.path("photos/jolla.jpg"), listing: "amazon")
        XCTAssertNil(frame.productShare)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("background ") && problems[0].hasSuffix("white at the edges, Amazon wants pure white (RGB 255)"), problems[0])
    }

    /// False alarms: no photo of the fixtures has an added border, nor the products on white; the
    /// measures of every fixture are kept for BENCHMARKS (Benchmarks/listing-rules.sh on the corpus).
    func testNoFixtureIsSaidToHaveABorder() throws {
        var bordered: [String] = []
        let onWhite = try [product("w1", box: (60, 100, 880, 800)), product("w2", width: 1200, height: 900, box: (300, 50, 600, 800)),
                           product("w3", box: (100, 100, 800, 800))]
        for path in Fixture.photos + onWhite {
            for marketplace in ["ebay"] where try prepared(path, listing: marketplace).0.border > 0 {
                bordered.append((path as NSString).lastPathComponent)
            }
        }
        XCTAssertEqual(bordered, [])
    }

    /// A listing not in the table is refused with the names that are; no listing measures nothing
    /// and leaves the settings' fingerprint as it was, so nothing changes for a seller who never asks.
    func testAnUnknownListingIsRefusedAndNoListingChangesNothing() throws {
        var options = PrepareOptions()
        let before = options.fingerprint
        options.listing = "etsy"
        XCTAssertEqual(options.problems.first, .invalidOption(name: "listing", value: "etsy", allowed: Marketplace.names))
        let preparer = try ImagePreparer(options: PrepareOptions())
        let encoded = try preparer.encode(try preparer.decode(file: Fixture.path("photos/DSCN0010.jpg")), stem: "photo")
        XCTAssertNil(encoded.frame)
        XCTAssertEqual(PrepareOptions().fingerprint, before)
        XCTAssertEqual(before, Fingerprint.hex("prepare-v2|2048|300000|75|92|jpeg|320|progressive"), "the fingerprint without a listing is the one before listings existed")
    }

    /// The README's table of marketplaces is this table: a row per entry, with its rules and `--fill`.
    func testTheReadmeListsEveryMarketplaceAsTheTableHasIt() throws {
        let readme = try String(contentsOf: Fixture.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"),
                                encoding: .utf8)
        for marketplace in Marketplace.all {
            let row = "| `\(marketplace.id)` | \(marketplace.name) | \(marketplace.summary) | \(String(format: "%g", marketplace.fill)) |"
            XCTAssertTrue(readme.contains(row), "README lacks: \(row)")
        }
    }
}

import TestSupport
import XCTest
@testable import ImagePipeline

/// Steps 6 and 7: the size box and the byte budget, and the quality the search chooses.
final class BudgetTests: XCTestCase {
    func testLongestEdgeIsBoundedAndSmallPhotosAreNeverEnlarged() throws {
        let jolla = try ImagePreparer().prepare(file: Fixture.path("photos/jolla.jpg"))
        XCTAssertEqual([jolla.width, jolla.height], [2048, 1536])

        var options = PrepareOptions()
        options.maxEdge = 1000
        let smaller = try ImagePreparer(options: options).prepare(file: Fixture.path("photos/jolla.jpg"))
        XCTAssertEqual([smaller.width, smaller.height], [1000, 750])

        options.maxEdge = 4000
        let flowers = try ImagePreparer(options: options).prepare(file: Fixture.path("photos/flowers.jpeg"))
        XCTAssertEqual([flowers.width, flowers.height], [1920, 1080])
    }

    /// Each fixture decoded once, then encoded under every budget: the budget search works on the
    /// decoded pixels, so this proves the same as preparing from the file each time, six times faster.
    func testEveryFixtureFitsEveryBudgetFrom50KTo1M() throws {
        var fitted = 0
        for path in Fixture.photos {
            let decoded = try ImagePreparer().decode(file: path)
            let sourceEdge = max(decoded.source.uprightWidth, decoded.source.uprightHeight)
            for budget in [50_000, 100_000, 200_000, 300_000, 500_000, 1_000_000] {
                var options = PrepareOptions()
                options.maxBytes = budget
                let encoded = try ImagePreparer(options: options).encode(decoded, stem: "x")
                XCTAssertLessThanOrEqual(encoded.byteCount, budget, "\(path) at \(budget)")
                XCTAssertTrue((options.minQuality...options.maxQuality).contains(encoded.quality ?? -1))
                XCTAssertGreaterThanOrEqual(max(encoded.width, encoded.height), min(options.minEdge, sourceEdge))
                fitted += 1
            }
        }
        XCTAssertEqual(fitted, 6 * Fixture.photos.count)
    }

    /// The model-guided search must find what trying every quality finds, on the same pixels.
    func testChosenQualityMatchesExhaustiveSearch() throws {
        let cases: [(String, Int)] = [
            ("photos/jolla.jpg", 300_000), ("photos/2569067123_aca715a2ee_o.jpg", 300_000),
            ("photos/iphone_13_pro_max.HEIC", 300_000), ("photos/DSCN0010.jpg", 100_000),
            ("photos/flowers.jpeg", 40_000), ("orientation/Landscape_6.jpg", 90_000),
            ("photos/jolla.jpg", 500_000),
        ]
        var totalEncodes = 0
        for (name, budget) in cases {
            var options = PrepareOptions()
            options.maxBytes = budget
            let preparer = try ImagePreparer(options: options)
            let decoded = try preparer.decode(file: Fixture.path(name))
            let chosen = try preparer.encode(decoded, stem: "x")
            let curve = try preparer.qualityCurve(decoded, for: chosen)
            XCTAssertEqual(curve.count, options.maxQuality - options.minQuality + 1)
            XCTAssertEqual(curve[chosen.quality ?? 0], chosen.byteCount, "the curve is measured on the same pixels")
            let best = curve.filter { $0.value <= budget }.keys.max()
            let quality = try XCTUnwrap(chosen.quality)
            XCTAssertNotNil(best, "\(name): exhaustive search finds a fitting quality at the final size")
            XCTAssertLessThanOrEqual(abs(quality - (best ?? 0)), 1, "\(name) at \(budget): chose \(quality), best \(best ?? -1)")
            // Two searches (before and after a shrink) on a photo with an unusually flat size curve
            // (DSCN0010 at 100 KB) is the worst case seen.
            XCTAssertLessThanOrEqual(chosen.encodes, 7, name)
            totalEncodes += chosen.encodes
            print("exhaustive check: \(name) at \(budget): Q\(quality) (best \(best ?? -1)), \(chosen.width)×\(chosen.height), \(chosen.encodes) encodes")
        }
        XCTAssertLessThanOrEqual(Double(totalEncodes) / Double(cases.count), 4.5)
    }

    func testQualityRangeIsRespected() throws {
        var options = PrepareOptions()
        options.minQuality = 60
        options.maxQuality = 70
        let small = try ImagePreparer(options: options).prepare(file: Fixture.path("photos/DSCN0010.jpg"))
        XCTAssertEqual(small.quality, 70)
        XCTAssertEqual(small.encodes, 1)
    }

    func testTightBudgetShrinksPixelsInsteadOfGoingBelowMinimumQuality() throws {
        var options = PrepareOptions()
        options.maxBytes = 60_000
        let encoded = try ImagePreparer(options: options).prepare(file: Fixture.path("photos/jolla.jpg"))
        XCTAssertLessThanOrEqual(encoded.byteCount, 60_000)
        XCTAssertLessThan(encoded.width, 2048)
        XCTAssertGreaterThanOrEqual(encoded.quality ?? 0, options.minQuality)
        XCTAssertEqual(Double(encoded.width) / Double(encoded.height), 4.0 / 3.0, accuracy: 0.01)
    }

    func testImpossibleBudgetFailsClearlyAtTheMinimumSize() throws {
        var options = PrepareOptions()
        options.maxBytes = 2_000
        XCTAssertThrowsError(try ImagePreparer(options: options).prepare(file: Fixture.path("photos/jolla.jpg"))) { error in
            guard case .cannotFitBudget(let budget, let smallest, let width, _, _)? = error as? ImagePipelineError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(budget, 2_000)
            XCTAssertGreaterThan(smallest, 2_000)
            XCTAssertEqual(width, options.minEdge)
        }
    }

    func testSearchNeverLoopsOnADegenerateCurve() throws {
        // Sizes that do not move with quality (a tiny flat image) must still end, at the top quality.
        let flat = QualitySearch(range: 75...92, budget: 1_000)
        var calls = 0
        let outcome = try flat.run { _ in calls += 1; return 500 }
        XCTAssertEqual(outcome.quality, 92)
        XCTAssertEqual(calls, 1)
        let hopeless = try QualitySearch(range: 75...92, budget: 1_000).run { _ in 5_000 }
        XCTAssertNil(hopeless.quality)
        XCTAssertLessThanOrEqual(hopeless.sizes.count, 2)
    }
}

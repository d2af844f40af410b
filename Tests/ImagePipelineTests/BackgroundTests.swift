import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// `--background white` through the real model (U²-Net-p run by OpenCV's DNN, loaded by dlopen):
/// masks against known truth on made product photos, the product framed on pixels that are
/// actually 255 around it, and the typed failures (no model, nothing to cut out). Needs the model
/// (`scripts/setup --tests` installs it).
final class BackgroundTests: FolderTestCase {
    /// Where each test makes the cases it reads.
    private var cases: String { root + "/cases" }

    private func decoded(_ path: String) throws -> DecodedImage {
        try DecodedImage.decode(.file(path), maxPixels: .max) { _ in (100_000, 100_000) }
    }

    /// Each made case's mask (at 128) against its truth: the share of product pixels both agree on.
    private func iou(_ name: String) throws -> Double {
        let photo = try decoded(cases + "/\(name).png"), truth = try decoded(cases + "/\(name).truth.png")
        let rgb = try photo.withSRGBBytes(alpha: false) { Array($0) }
        let mask = try rgb.withUnsafeBufferPointer { pixels in
            try MaskRuntime.shared().mask(model: BackgroundModel.path(nil), rgb: pixels, width: photo.width, height: photo.height)
        }
        let known = try truth.withSRGBBytes(alpha: false) { bytes in stride(from: 0, to: bytes.count, by: 3).map { bytes[$0] >= 128 } }
        var (both, either) = (0, 0)
        for (found, truth) in zip(mask.map { $0 >= 128 }, known) {
            both += found && truth ? 1 : 0
            either += found || truth ? 1 : 0
        }
        return Double(both) / Double(max(1, either))
    }

    /// IoU on every textured case at least 0.91 and 0.95 on average (measured: 0.92–0.99, mean 0.958;
    /// the mugs' handles are filled in, which is what keeps them lowest). Without the refinement along
    /// the photo's edges (a guided filter of 0.6% of the long side instead of 2%) the mean is 0.943.
    func testMasksMatchTheKnownTruth() throws {
        try ProductCases.make(ProductCases.textured, into: cases)
        let scores = try ProductCases.textured.map { try iou($0) }
        for (name, score) in zip(ProductCases.textured, scores) { XCTAssertGreaterThanOrEqual(score, 0.91, name) }
        XCTAssertGreaterThanOrEqual(scores.reduce(0, +) / Double(scores.count), 0.95, "\(scores)")
    }

    /// Where the model should struggle, a white mug on white and a clear glass: either cut out as
    /// well as the rest (measured 0.91 and 0.92 on these drawings) or named, never cut wrong in silence.
    func testHardCasesAreCutWellOrNamed() throws {
        try ProductCases.make(ProductCases.hard, into: cases)
        var options = PrepareOptions()
        options.background = ProductBackground()
        let preparer = try ImagePreparer(options: options)
        for name in ProductCases.hard {
            do {
                _ = try preparer.prepare(file: cases + "/\(name).png")
                XCTAssertGreaterThanOrEqual(try iou(name), 0.85, "\(name) was cut out, so its mask must be good")
            } catch ImagePipelineError.productNotFound {
                // Named: what the seller is told instead of a damaged photo.
            }
        }
    }

    /// `prepare` with `--background white`: a square as large as the fitted photo, every pixel of
    /// its edges exactly 255, the product's box 85% of the side and centred; so Amazon's rules pass
    /// but for the photo's size.
    func testTheProductIsFramedOnPureWhite() throws {
        var options = PrepareOptions()
        (options.format, options.maxBytes, options.listing) = (.png, 20_000_000, "amazon")
        options.background = ProductBackground(fill: 0.85)
        try ProductCases.make(["shoe-on-wood"], into: cases)
        let preparer = try ImagePreparer(options: options)
        let encoded = try preparer.encode(try preparer.decode(file: cases + "/shoe-on-wood.png"), stem: "shoe")
        XCTAssertEqual([encoded.format.rawValue, String(encoded.width), String(encoded.height)], ["png", "800", "800"])
        let frame = try XCTUnwrap(encoded.frame)
        XCTAssertEqual(frame.pureWhiteEdge, 1, "\(frame)")
        XCTAssertEqual(try XCTUnwrap(frame.productShare), 0.85, accuracy: 0.02, "\(frame)")
        XCTAssertLessThan(try XCTUnwrap(frame.productOffCentre), 0.02, "\(frame)")
        // All but the size, which a cut-out cannot add: the case is 800 px.
        XCTAssertEqual(encoded.warnings.filter { $0.contains("Amazon") }, ["long side 800 px, Amazon wants 1000 px or more"])
        // Read back from the bytes: the corners and the middle of each edge are pure white.
        let output = try DecodedImage.decode(.data(encoded.data), maxPixels: .max) { _ in (100_000, 100_000) }
        for (x, y) in [(0, 0), (799, 0), (0, 799), (799, 799), (400, 0), (400, 799), (0, 400), (799, 400)] {
            XCTAssertEqual(try output.mean(x: x, y: y, width: 1, height: 1), [255, 255, 255], "(\(x), \(y))")
        }
        // The same photo without the option keeps its ground: Amazon names it.
        options.background = nil
        let plain = try ImagePreparer(options: options)
        let kept = try plain.encode(try plain.decode(file: cases + "/shoe-on-wood.png"), stem: "shoe")
        XCTAssertEqual(kept.warnings.filter { $0.hasPrefix("background 0% pure white") }.count, 1, "\(kept.warnings)")
    }

    /// `--fill` is the product's longer side against the square's, whatever the photo's shape.
    func testFillSetsTheProductsShare() throws {
        try ProductCases.make(["bottle-on-cloth"], into: cases)
        for fill in [0.6, 0.95] {
            var options = PrepareOptions()
            (options.format, options.maxBytes, options.listing) = (.png, 20_000_000, "openmarket")
            options.background = ProductBackground(fill: fill)
            let preparer = try ImagePreparer(options: options)
            let encoded = try preparer.encode(try preparer.decode(file: cases + "/bottle-on-cloth.png"), stem: "bottle")
            XCTAssertEqual(try XCTUnwrap(encoded.frame?.productShare), fill, accuracy: 0.02, "fill \(fill)")
        }
    }

    /// Without the model, the option fails with what to install, naming where it looked.
    func testAMissingModelSaysWhatToInstall() throws {
        var options = PrepareOptions()
        options.background = ProductBackground(model: root + "/nowhere/u2netp.onnx")
        try ProductCases.make(["mug-on-wood"], into: cases)
        let preparer = try ImagePreparer(options: options)
        XCTAssertThrowsError(try preparer.prepare(file: cases + "/mug-on-wood.png")) { error in
            XCTAssertEqual(error as? ImagePipelineError, .backgroundModelMissing(searched: [root + "/nowhere/u2netp.onnx"]))
        }
    }

    /// A frame with no product in it is named, not cut out into an empty square.
    func testAFrameWithNoProductIsNamed() throws {
        let blank = root + "/grey.png"
        try GeneratedImage.grey(width: 600, height: 400, to: blank)
        var options = PrepareOptions()
        options.background = ProductBackground()
        XCTAssertThrowsError(try ImagePreparer(options: options).prepare(file: blank)) { error in
            guard case .productNotFound = error as? ImagePipelineError else { return XCTFail("\(error)") }
        }
    }
}

import Foundation
import TestSupport
import XCTest
@testable import ImagePipeline

/// Every size, quality and count is bounded where the options are made: out-of-range values are a
/// typed error before any work, never a trap at the C boundary (which, behind a service option, would
/// be a one-request denial of service).
final class OptionBoundsTests: XCTestCase {
    /// Values a fuzzer would try first: zero, signs, powers of two around Int32, and the extremes.
    private static let edgeValues = [0, 1, -1, 15, 16, 100, 2048, 65_535, 65_536, 10_000_000, Int(Int32.max),
                                     Int(Int32.max) + 1, 3_000_000_000, Int(UInt32.max) + 1, Int.max, Int.min]

    private func values(_ generator: inout SeededGenerator) -> Int {
        Bool.random(using: &generator) ? Self.edgeValues.randomElement(using: &generator)! : Int.random(in: Int.min...Int.max, using: &generator)
    }

    func testPrepareOptionsAreValidatedOrWorkForAnyNumbers() throws {
        var generator = SeededGenerator(seed: 0xB16)
        let photo = Fixture.path("photos/DSCN0010.jpg")
        var accepted = 0
        for _ in 0..<400 {
            var options = PrepareOptions()
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: options.maxEdge = values(&generator)
            case 1: options.maxBytes = values(&generator)
            case 2: options.minQuality = values(&generator)
            case 3: options.maxQuality = values(&generator)
            case 4: options.maxPixels = values(&generator)
            default: options.minEdge = values(&generator)
            }
            do throws(ImagePipelineError) {
                let preparer = try ImagePreparer(options: options)
                let image = try preparer.prepare(file: photo)
                XCTAssertLessThanOrEqual(image.byteCount, options.maxBytes)
                XCTAssertLessThanOrEqual(max(image.width, image.height), options.maxEdge)
                accepted += 1
            } catch {
                switch error {
                case .invalidOption, .tooManyPixels, .cannotFitBudget: break
                default: XCTFail("\(options): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(accepted, 20, "some random settings are valid and must work")
    }

    func testRenderSpecsAreValidatedOrWorkForAnyNumbers() throws {
        var generator = SeededGenerator(seed: 0x5BEC)
        let decoded = try DecodedImage.decode(file: Fixture.path("photos/DSCN0010.jpg"), maxPixels: .max) { _ in (400, 400) }
        for _ in 0..<300 {
            var spec = RenderSpec(resizing: RenderSpec.Resizing.allCases.randomElement(using: &generator)!,
                                  gravity: RenderSpec.Gravity.allCases.randomElement(using: &generator)!,
                                  enlarge: Bool.random(using: &generator),
                                  format: OutputFormat.allCases.randomElement(using: &generator)!)
            // Mostly sane sizes, so enlargements stay small enough to render quickly.
            spec.width = Bool.random(using: &generator) ? Int.random(in: 0...700, using: &generator) : values(&generator)
            spec.height = Bool.random(using: &generator) ? Int.random(in: 0...700, using: &generator) : values(&generator)
            if Bool.random(using: &generator) { spec.quality = values(&generator) }
            if Bool.random(using: &generator) { spec.maxBytes = Bool.random(using: &generator) ? Int.random(in: 256...40_000, using: &generator) : values(&generator) }
            if spec.enlarge, max(spec.width, spec.height) > 2000 { spec.enlarge = false }
            do throws(ImagePipelineError) {
                let image = try ImageRenderer(spec: spec).render(decoded)
                if let maxBytes = spec.maxBytes { XCTAssertLessThanOrEqual(image.byteCount, maxBytes, "\(spec)") }
                if spec.width > 0 { XCTAssertLessThanOrEqual(image.width, max(spec.width, decoded.width), "\(spec)") }
            } catch {
                switch error {
                case .invalidOption, .cannotFitBudget: break
                default: XCTFail("\(spec): \(error)")
                }
            }
        }
    }

    func testThumbnailOptionsAndFolderJobsAreBounded() {
        var thumbnails = ThumbnailOptions()
        thumbnails.variants = [ThumbnailVariant(name: "huge", points: 3_000_000_000)]
        XCTAssertThrowsError(try thumbnails.validated())
        thumbnails = ThumbnailOptions()
        thumbnails.scales = [Int.max]
        XCTAssertThrowsError(try thumbnails.validated())
        var job = FolderJob(inputs: [], outputFolder: "/nonexistent")
        job.jobs = Int.max
        XCTAssertThrowsError(try FolderProcessor(job: job)) { error in
            guard case .invalidOption(name: "jobs", _, _)? = error as? ImagePipelineError else { return XCTFail("\(error)") }
        }
    }

    /// A longest edge below the default shortest one (what a photo may be shrunk to) is simply the size.
    func testMaxEdgeBelowTheDefaultMinimumJustWorks() throws {
        var options = PrepareOptions()
        options.maxEdge = 100
        let report = try FolderProcessor(job: FolderJob(inputs: [Fixture.path("photos/jolla.jpg")], outputFolder: try temporaryFolder(self), prepare: options)).run()
        XCTAssertTrue(report.succeeded, "\(report.failed)")
        XCTAssertEqual(report.written.first.map { max($0.width, $0.height) }, 100)
    }

    /// Uploads are what the OpenMarket server takes, JPEG or PNG; every other format is refused by name.
    func testPrepareWritesOnlyWhatTheServerTakes() {
        for format in OutputFormat.allCases {
            var options = PrepareOptions()
            options.format = format
            XCTAssertEqual(options.problems.map(\.code).contains("invalid-option"), ![.jpeg, .png].contains(format), "\(format)")
        }
    }
}

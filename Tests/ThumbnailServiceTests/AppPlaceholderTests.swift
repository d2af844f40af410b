import Foundation
@testable import ImagePipeline
import MarketUploader
import TestSupport
import XCTest

/// The app's side of `/info`, the way an app takes it: the service started as `serve --only-presets`
/// runs it, the info URL built by `ThumbnailURLBuilder` with no key, fetched over HTTP, decoded as
/// `ImageInfo`, and its ThumbHash drawn as the cell's placeholder, which must look like the photo.
final class AppPlaceholderTests: FolderTestCase {
    func testACellIsPaintedFromTheServicesInfoAnswer() async throws {
        let photos = [("photos/jolla.jpg", "jpeg"), ("orientation/Landscape_6.jpg", "jpeg"), ("photos/iphone_13_pro_max.HEIC", "heif"),
                      ("photos/flowers.jpeg", "jpeg"), ("alpha/Flag_of_the_Netherlands-alpha.png", "png")]
        try copyFlat(photos.map(\.0))
        let service = try await startService(["--root", input, "--only-presets"], environment: ["MARKET_IMAGES_KEY": ""])
        let builder = ThumbnailURLBuilder(service: service.base)

        for (photo, format) in photos {
            let name = (photo as NSString).lastPathComponent
            let url = try XCTUnwrap(builder.infoURL(for: try XCTUnwrap(URL(string: "local:///" + name))))
            let answer = try await service.get(url.path)
            XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
            let info = try JSONDecoder().decode(ImageInfo.self, from: answer.body)

            let header = try ImageHeader.read(file: input + "/" + name)
            XCTAssertEqual(info.format, format, name)
            XCTAssertEqual([info.width, info.height, info.orientation], [header.uprightWidth, header.uprightHeight, header.orientation], name)
            XCTAssertEqual(info.aspectRatio, Double(header.uprightWidth) / Double(header.uprightHeight), accuracy: 1e-9, name)
            XCTAssertEqual(info.dominantColour.alpha, 1, name)
            // The hash's shape is rough (its terms per side), but a landscape photo gets a landscape cell.
            let placeholder = info.thumbHash.image()
            XCTAssertEqual(placeholder.width > placeholder.height, info.width > info.height, "\(name): \(placeholder.width)×\(placeholder.height)")
            XCTAssertEqual(info.thumbHash.aspectRatio, info.aspectRatio, accuracy: info.aspectRatio * 0.35, name)

            let alpha = stride(from: 3, to: placeholder.rgba.count, by: 4).map { Double(placeholder.rgba[$0]) }
            let photo = try DecodedImage.decode(file: input + "/" + name, maxPixels: .max) { _ in (100, 100) }.image
            let photoMeans = try photo.meanBands(x: 0, y: 0, width: photo.width, height: photo.height)
            if header.hasAlpha {
                // As see-through as the photo, within the hash's 4-bit steps of alpha (17 levels).
                XCTAssertEqual(alpha.reduce(0, +) / Double(alpha.count), photoMeans[3], accuracy: 12, "\(name): the placeholder keeps transparency")
                continue
            }
            XCTAssertEqual(alpha.min(), 255, name)
            // Like the photo: the photo squeezed to the placeholder's size is closer to the placeholder
            // than to a flat cell of the placeholder's average colour (what a decoder that draws only
            // the average, or the wrong terms, would show), and within 40 levels on average.
            let photoPixels = try pixels(of: input + "/" + name, width: placeholder.width, height: placeholder.height)
            let average = info.thumbHash.averageColour
            let flat = (0..<placeholder.width * placeholder.height).flatMap { _ in
                [average.red, average.green, average.blue].map { UInt8(($0 * 255).rounded()) } + [255]
            }
            let (toPlaceholder, toFlat) = (Self.meanDifference(photoPixels, placeholder.rgba), Self.meanDifference(photoPixels, flat))
            let distances = "\(name): \(Int(toPlaceholder)) levels from the placeholder, \(Int(toFlat)) from its average colour"
            XCTAssertLessThan(toPlaceholder, 40, distances)
            XCTAssertLessThan(toPlaceholder, toFlat * 0.85, distances + ": the placeholder shows the photo's layout, not only its colour")
            // And the cell's first colour: the photo's mean within a few levels.
            for (band, component) in [average.red, average.green, average.blue].enumerated() {
                XCTAssertEqual(component * 255, photoMeans[band], accuracy: 8, "\(name), band \(band)")
            }
        }
    }

    /// The photo, upright, resized to exactly `width`×`height` (as the placeholder stretches it), as
    /// RGBA bytes.
    private func pixels(of path: String, width: Int, height: Int) throws -> [UInt8] {
        let squeezed = try ImageRenderer(spec: RenderSpec(width: width, height: height, resizing: .force, format: .png)).render(.file(path), maxPixels: .max)
        let decoded = try DecodedImage.decode(.data(squeezed.data), maxPixels: .max) { _ in (width, height) }
        XCTAssertEqual([decoded.width, decoded.height], [width, height])
        return try decoded.withSRGBBytes(alpha: true) { Array($0) }
    }

    /// Mean absolute difference of the colour channels (alpha left out), in levels.
    private static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let channels = zip(a, b).enumerated().filter { $0.offset % 4 != 3 }.map { abs(Double($0.element.0) - Double($0.element.1)) }
        return channels.reduce(0, +) / Double(max(channels.count, 1))
    }
}

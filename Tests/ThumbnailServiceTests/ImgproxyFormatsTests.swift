import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import TestSupport
import XCTest
@testable import ThumbnailService

/// Formats as imgproxy chooses and writes them, through the service: a source keeps its own format
/// when the URL and `Accept` choose none (`--preferred-formats`), GIF is written (animated up to
/// `--max-animation-frames`) with no metadata, the formats imgproxy writes and this service does not
/// are refused by name, and `trim` cuts a transparent border.
final class ImgproxyFormatsTests: ServiceTestCase {
    /// What an app or `curl` sends: no WebP, AVIF or JPEG XL.
    private static let plainAccept = "image/jpeg,image/png,image/gif,*/*;q=0.8"

    private static func get(_ client: any TestClientProtocol, _ uri: String, accept: String? = nil) async throws -> (status: HTTPResponse.Status, type: String?, etag: String?, body: Data) {
        try await client.execute(uri: uri, method: .get, headers: [.accept: accept ?? Self.plainAccept]) { answer in
            (answer.status, answer.headers[.contentType], answer.headers[.eTag], Data(buffer: answer.body))
        }
    }

    func testWithoutAFormatTheSourceKeepsItsOwnByThePreferredFormats() async throws {
        try GeneratedImage.quadrants(width: 120, height: 80, to: input + "/sku-1/opaque.png")
        try PillowAnimation.gif(width: 120, height: 80, colours: [[255, 0, 0]], durations: [100], to: input + "/sku-1/still.gif")
        let png = path(["w:60"], source: "local:///sku-1/opaque.png"), gif = path(["w:60"], source: "local:///sku-1/still.gif")
        let jpeg = path(["w:60"]), budget = path(["w:60", "mb:20000"], source: "local:///sku-1/opaque.png")
        let asPNG = path(["w:60", "f:png"], source: "local:///sku-1/opaque.png"), asJPEG = path(["w:60", "f:jpg"], source: "local:///sku-1/opaque.png")
        try await withService(configuration()) { _, client in
            var types: [String?] = []
            for uri in [png, gif, jpeg, budget] { types.append(try await Self.get(client, uri).type) }
            XCTAssertEqual(types, ["image/png", "image/gif", "image/jpeg", "image/jpeg"], "PNG, GIF and JPEG kept; a budget takes JPEG")
            let (kept, named, other) = (try await Self.get(client, png), try await Self.get(client, asPNG), try await Self.get(client, asJPEG))
            XCTAssertEqual(kept.etag, named.etag, "the format chosen is the ETag's: one output, one tag")
            XCTAssertNotEqual(kept.etag, other.etag)
            XCTAssertEqual(kept.body, named.body)
            let accepted = try await Self.get(client, png, accept: "image/webp,*/*")
            XCTAssertEqual(accepted.type, "image/webp", "Accept still chooses first")
        }
        var configuration = configuration()
        configuration.limits.preferredFormats = [.webp, .png]
        try await withService(configuration) { _, client in
            let (fromJPEG, fromPNG) = (try await Self.get(client, jpeg), try await Self.get(client, png))
            XCTAssertEqual(fromJPEG.type, "image/webp", "the first preferred for a JPEG not preferred")
            XCTAssertEqual(fromPNG.type, "image/png")
        }
    }

    /// GIF comes out of libvips' own saver: animated with the source's frames and delays up to the
    /// frame limit (and `maf`), a still otherwise, and with nothing about the source (ExifTool and a
    /// walk of its blocks).
    func testGIFIsWrittenAnimatedUpToTheFrameLimitWithoutMetadata() async throws {
        try PillowAnimation.gif(width: 120, height: 80, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], durations: [100, 200, 300],
                                to: input + "/sku-1/three.gif")
        try copy("metadata/everything.jpg", to: "sku-1/everything.jpg")
        let animated = path(["w:60"], source: "local:///sku-1/three.gif"), still = path(["w:60", "maf:1"], source: "local:///sku-1/three.gif")
        let converted = path(["w:60"], source: "local:///sku-1/everything.jpg", format: "gif")
        var configuration = configuration()
        (configuration.limits.maxAnimationFrames, configuration.allowSecurityOptions) = (3, true)
        let folder = root
        try await withService(configuration) { _, client in
            var files: [String] = []
            for (index, (uri, accept)) in [(animated, nil), (animated, "image/webp"), (still, nil), (converted, "image/webp")].enumerated() {
                let answer = try await Self.get(client, uri, accept: accept)
                XCTAssertEqual(answer.status, .ok)
                files.append(folder + "/answer-\(index)")
                try answer.body.write(to: URL(fileURLWithPath: files[index]))
            }
            let frames = try files.prefix(3).map { try PillowAnimation.frames(of: $0) }
            XCTAssertEqual(frames[0].map(\.size), [[60, 40], [60, 40], [60, 40]])
            XCTAssertEqual(frames[0].map(\.duration), [100, 200, 300], "the source's delays")
            XCTAssertEqual(frames[0].map(\.centre), [[255, 0, 0], [0, 255, 0], [0, 0, 255]])
            XCTAssertEqual(frames.map(\.count), [3, 3, 1], "a GIF for a client without WebP, animated WebP for one with it; maf:1 a still")
            XCTAssertEqual(try ImageHeader.read(file: files[1]).format, "WebP")
            XCTAssertEqual(try ImageHeader.read(file: files[3]).format, "GIF", "@gif whatever Accept says")
            for file in files {
                XCTAssertEqual(try Exiftool.metadata(in: [file])[file], [], file)
                XCTAssertEqual(ContainerMetadata.kinds(in: try Data(contentsOf: URL(fileURLWithPath: file))), [], file)
            }
        }
    }

    /// BMP, ICO, TIFF and HEIC, which imgproxy writes, are refused by name with what to ask for instead.
    func testFormatsNotWrittenAreRefusedByNameWithWhatToAskFor() async throws {
        let asked = [(path(["w:60"], format: "bmp"), "png"), (path(["w:60", "f:ico"]), "png"), (path(["w:60"], format: "tiff"), "png"),
                     (path(["w:60", "ext:heic"]), "avif")]
        try await withService(configuration()) { _, client in
            for (uri, instead) in asked {
                let answer = try await Self.get(client, uri)
                XCTAssertEqual(answer.status, .badRequest, uri)
                let body = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: String])
                XCTAssertEqual(body["error"], "format-not-written", uri)
                XCTAssertTrue(body["detail"]?.contains("is read but not written here") ?? false, body["detail"] ?? uri)
                XCTAssertTrue(body["detail"]?.hasSuffix("ask for \(instead) instead") ?? false, body["detail"] ?? uri)
            }
        }
    }

    /// `t` on a cut-out: the transparent border goes, whatever its invisible pixels hold.
    func testTrimCutsATransparentBorder() async throws {
        try GeneratedImage.cutOut(width: 300, height: 200, inner: (x: 70, y: 40, width: 120, height: 90), to: input + "/sku-1/cut-out.png")
        let trimmed = path(["t:10"], source: "local:///sku-1/cut-out.png"), whole = path(["rt:fit"], source: "local:///sku-1/cut-out.png")
        let folder = root
        try await withService(configuration()) { _, client in
            var sizes: [[Int]] = []
            for uri in [trimmed, whole] {
                let answer = try await Self.get(client, uri)
                XCTAssertEqual(answer.type, "image/png", "transparency keeps PNG")
                let header = try readBack(answer.body, in: folder).header
                sizes.append([header.width, header.height])
            }
            XCTAssertEqual(sizes, [[120, 90], [300, 200]])
        }
    }
}

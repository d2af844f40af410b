import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import TestSupport
import MarketUploader
import XCTest
@testable import ThumbnailService

/// imgproxy's open-source processing options through the service, as an app or an operator moving
/// from imgproxy meets them: each accepted by every name, each that changes pixels in the ETag, and
/// its effect checked on the answer (sizes, pixels, headers, bytes).
final class ImgproxyOptionsTests: ServiceTestCase {
    /// imgproxy's open-source option list (its docs, processing.mdx, without the Pro ones), each with
    /// a valid argument.
    static let openSourceOptions: [(names: [String], argument: String)] = [
        (["resize", "rs"], "fill:100:100"), (["size", "s"], "100:100"), (["resizing_type", "rt"], "fill"), (["width", "w"], "100"),
        (["height", "h"], "100"), (["min-width", "mw"], "50"), (["min-height", "mh"], "50"), (["zoom", "z"], "0.5"), (["dpr"], "2"),
        (["enlarge", "el"], "1"), (["extend", "ex"], "1"), (["extend_aspect_ratio", "exar"], "1"), (["gravity", "g"], "nowe:10:5"),
        (["crop", "c"], "100:100:ce"), (["trim", "t"], "10"), (["padding", "pd"], "5"), (["auto_rotate", "ar"], "1"),
        (["rotate", "rot"], "90"), (["flip", "fl"], "1:0"), (["background", "bg"], "ffffff"), (["blur", "bl"], "2"),
        (["sharpen", "sh"], "0.5"), (["pixelate", "pix"], "5"), (["watermark", "wm"], "0.5:soea"), (["strip_metadata", "sm"], "1"),
        (["keep_copyright", "kcr"], "0"), (["strip_color_profile", "scp"], "1"), (["preserve_hdr", "ph"], "0"),
        (["enforce_thumbnail", "eth"], "0"), (["quality", "q"], "70"), (["format_quality", "fq"], "webp:60"), (["max_bytes", "mb"], "20000"),
        (["format", "f", "ext"], "png"), (["skip_processing", "skp"], "jpg"), (["raw"], "0"), (["cachebuster", "cb"], "x"),
        (["expires", "exp"], "4102444800"), (["filename", "fn"], "shoe"), (["return_attachment", "att"], "1"), (["preset", "pr"], "list"),
        (["max_src_resolution", "msr"], "10"), (["max_src_file_size", "msfs"], "1000000"), (["max_animation_frames", "maf"], "1"),
        (["max_animation_frame_resolution", "mafr"], "10"), (["max_result_dimension", "mrd"], "500"),
    ]

    func testEveryOpenSourceOptionIsAcceptedByEveryName() throws {
        XCTAssertEqual(Self.openSourceOptions.count, 45)
        for (names, argument) in Self.openSourceOptions {
            for name in names {
                XCTAssertNoThrow(try ImageRequestPath.parse("/\(name):\(argument)/plain/local:///a.jpg", allowSecurityOptions: true), name)
            }
        }
    }

    /// A URL's pixels are its ETag's: each option that changes them changes the tag, the name of the
    /// download does not, and the options an existing URL had keep the tag it had.
    func testPixelOptionsAreInTheCanonicalFormAndOldURLsKeepTheirs() throws {
        func canonical(_ options: String) throws -> String {
            try ImageRequestPath.parse("/\(options)/plain/local:///a.jpg", allowSecurityOptions: true).options.canonical(format: .jpeg, defaultQuality: 80)
        }
        let base = try canonical("rs:fill:100:100")
        XCTAssertEqual(base, "rt:fill/w:100/h:100/dpr:1.0/g:ce/el:0/q:80/mb:0/f:jpeg/fr:0/ex:0/exar:0/pd:0:0:0:0/bg:255:255:255/t:0",
                       "the canonical form of the options that existed before stays as it was: their ETags and cache keys too")
        for option in ["g:ce:0.1:0", "g:fp:0.2:0.3", "c:50:50", "mw:200", "mh:200", "z:2", "rot:90", "fl:1:0", "bl:2", "sh:1", "pix:4",
                       "fq:jpeg:60", "mrd:50", "skp:jpg", "raw:1", "msr:1", "msfs:1000"] {
            XCTAssertNotEqual(try canonical("rs:fill:100:100/" + option), base, option)
        }
        for option in ["fn:shoe", "att:1", "ar:1", "scp:1", "kcr:0", "ph:0", "eth:0", "rot:0", "rot:360", "fl:0:0", "bl:0", "pix:1", "z:1",
                       "fq:webp:60", "g:ce:0:0"] {
            XCTAssertEqual(try canonical("rs:fill:100:100/" + option), base, option)
        }
        XCTAssertEqual(try canonical("rs:fill:100:100/fq:jpeg:60"), try canonical("rs:fill:100:100/q:60"), "one quality, one tag")
        XCTAssertEqual(try canonical("rs:fill:100:100/fq:jpeg:60/q:70"), try canonical("rs:fill:100:100/q:70"), "quality wins over format_quality")
    }

    func testMalformedNewOptionsAreNamed() {
        let cases: [(String, String)] = [
            ("rot:45", "a multiple of 90 degrees"), ("g:fp:1.5:0", "a number from 0 to 1"), ("g:sm:10:10", "no offsets with sm"),
            ("z:0", "a number above 0 to 64"), ("bl:1000", "a number from 0 to 100"), ("fq:webp", "format:quality pairs"),
            ("fq:svg:50", "jpg, png, webp, avif, jxl or gif"), ("fl:maybe", "1, t, true, 0, f or false"), ("c:-5:10", "a number from 0 to 65535"),
        ]
        for (option, expected) in cases {
            XCTAssertThrowsError(try ImageRequestPath.parse("/\(option)/plain/local:///a.jpg"), option) { error in
                guard case .invalidArgument(_, _, let said)? = error as? ProcessingError else { return XCTFail("\(option): \(error)") }
                XCTAssertEqual(said, expected, option)
            }
        }
    }

    func testRotateFlipAndCropThroughTheService() async throws {
        let header = try ImageHeader.read(file: input + "/sku-1/IMG_1.jpg")
        XCTAssertGreaterThan(header.uprightWidth, header.uprightHeight, "a landscape photo")
        let (plain, turned, flipped, cropped) = (path(["w:300", "f:png"]), path(["w:150", "rot:90", "f:png"]), path(["w:300", "fl:1", "f:png"]),
                                                  path(["c:0.5:0.5:nowe", "f:png"]))
        try await withService(configuration()) { _, client in
            let original = try DecodedImage.decode(.data(Data(buffer: try await client.execute(uri: plain, method: .get) { $0.body })), maxPixels: .max) { _ in (9999, 9999) }
            let rotated = try DecodedImage.decode(.data(Data(buffer: try await client.execute(uri: turned, method: .get) { $0.body })), maxPixels: .max) { _ in (9999, 9999) }
            XCTAssertEqual(rotated.width, 150, "the box is the turned image's")
            XCTAssertGreaterThan(rotated.height, rotated.width)
            let mirror = try DecodedImage.decode(.data(Data(buffer: try await client.execute(uri: flipped, method: .get) { $0.body })), maxPixels: .max) { _ in (9999, 9999) }
            XCTAssertEqual(try mirror.mean(x: 0, y: 0, width: 20, height: 20), try original.mean(x: original.width - 20, y: 0, width: 20, height: 20), accuracy: 3,
                           "the top left corner is the original's top right")
            let answer = try await client.execute(uri: cropped, method: .get) { $0 }
            let cut = try ImageHeader.read(.data(Data(buffer: answer.body)))
            XCTAssertEqual([cut.width, cut.height], [(header.uprightWidth + 1) / 2, (header.uprightHeight + 1) / 2].map { $0 }, accuracy: 1)
        }
    }

    func testFilenameAndAttachmentCannotInjectAHeader() async throws {
        let hostile = "evil%22%3B%20x%3D%22%0D%0ASet-Cookie%20a%3D1"
        let korean = "신발 사진".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let encoded = Data("sneaker \"blue\".png".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let cases: [([String], String?)] = [
            (["w:100"], nil),
            (["w:100", "att:1"], "attachment; filename=\"IMG_1.jpg\""),
            (["w:100", "fn:shoe"], "inline; filename=\"shoe.jpg\""),
            (["w:100", "fn:\(korean)", "att:1"], "attachment; filename=\"__ __.jpg\"; filename*=UTF-8''%EC%8B%A0%EB%B0%9C%20%EC%82%AC%EC%A7%84.jpg"),
            (["w:100", "fn:\(encoded):1"], "inline; filename=\"sneaker _blue_.png.jpg\"; filename*=UTF-8''sneaker%20%22blue%22.png.jpg"),
            (["w:100", "fn:\(hostile)"], "inline; filename=\"evil__ x__Set-Cookie a_1.jpg\"; filename*=UTF-8''evil%22%3B%20x%3D%22Set-Cookie%20a%3D1.jpg"),
        ]
        let paths = cases.map { path($0.0) }
        try await withService(configuration()) { _, client in
            for ((options, expected), path) in zip(cases, paths) {
                let answer = try await client.execute(uri: path, method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok, "\(options)")
                XCTAssertEqual(answer.headers[.contentDisposition], expected, "\(options)")
                XCTAssertNil(answer.headers[.setCookie], "\(options)")
            }
        }
    }

    /// `raw` and `skp` answer the source's own bytes only when they carry nothing a render would
    /// strip; a phone photo with EXIF is rendered (`skp`) or refused (`raw`), and the limits hold.
    func testRawAndSkipProcessingNeverLeakMetadata() async throws {
        let clean = try ImageRenderer(spec: RenderSpec(width: 400, height: 400, format: .jpeg)).render(.file(input + "/sku-1/IMG_1.jpg"), maxPixels: .max)
        try clean.data.write(to: URL(fileURLWithPath: input + "/sku-1/clean.jpg"))
        try copy("photos/DSCN0010.jpg", to: "sku-1/gps.jpg")
        XCTAssertTrue(try ImageHeader.read(file: input + "/sku-1/gps.jpg").metadata.gps, "a camera photo with GPS")
        let paths = [path(["raw:1"], source: "local:///sku-1/clean.jpg"), path(["raw:1"], source: "local:///sku-1/gps.jpg"),
                     path(["skp:jpg", "f:jpg"], source: "local:///sku-1/clean.jpg"), path(["skp:jpg", "w:300", "f:jpg"], source: "local:///sku-1/gps.jpg"),
                     path(["raw:1", "msfs:1000"], source: "local:///sku-1/clean.jpg")]
        var configuration = configuration()
        configuration.allowSecurityOptions = true
        let folder = root
        try await withService(configuration) { _, client in
            let raw = try await client.execute(uri: paths[0], method: .get) { $0 }
            XCTAssertEqual(raw.status, .ok)
            XCTAssertEqual(raw.headers[.contentType], "image/jpeg")
            XCTAssertEqual(Data(buffer: raw.body), clean.data, "the source's own bytes")
            let sideways = try await client.execute(uri: paths[1], method: .get) { $0 }
            XCTAssertEqual(sideways.status, .unprocessableContent)
            XCTAssertTrue(String(buffer: sideways.body).contains("not-raw"), String(buffer: sideways.body))
            let skipped = try await client.execute(uri: paths[2], method: .get) { $0 }
            XCTAssertEqual(Data(buffer: skipped.body), clean.data, "skp: a JPEG asked as JPEG is sent as it is")
            let rendered = try await client.execute(uri: paths[3], method: .get) { $0 }
            XCTAssertEqual(rendered.status, .ok)
            let output = folder + "/rendered.jpg"
            try Data(buffer: rendered.body).write(to: URL(fileURLWithPath: output))
            XCTAssertEqual(try ImageHeader.read(file: output).width, 300, "skp on a photo with EXIF: rendered")
            XCTAssertEqual(try Exiftool.metadata(in: [output])[output], [], "and no metadata left")
            let tooLarge = try await client.execute(uri: paths[4], method: .get) { $0 }
            XCTAssertEqual(tooLarge.status, .contentTooLarge, "raw still holds the source's byte limit")
        }
    }

    /// `raw` and `skp` send a source's own bytes only when every part of the file shows pixels: each
    /// way tools and attackers hide metadata or a second file (made by Python, not by our walker) is
    /// refused by `raw` with the part named, and rendered clean by `skp`; clean files of each format
    /// go as they are; every answer, image or error, says `nosniff`.
    func testRawAndSkipSendOnlyPartsThatShowPixels() async throws {
        var clean: [String: Data] = [:]
        for format in [OutputFormat.jpeg, .png, .webp] {
            let image = try ImageRenderer(spec: RenderSpec(width: 300, height: 300, format: format)).render(.file(input + "/sku-1/IMG_1.jpg"), maxPixels: .max)
            clean[format.fileExtension] = image.data
            try image.data.write(to: URL(fileURLWithPath: input + "/sku-1/clean." + format.fileExtension))
        }
        try copy("photos/DSCN0010.jpg", to: "sku-1/camera.jpg")
        let folder = input + "/sku-1", shapes = SmuggledMetadata.shapes
        try SmuggledMetadata.make(in: folder, jpeg: folder + "/clean.jpg", png: folder + "/clean.png", webp: folder + "/clean.webp", camera: folder + "/camera.jpg")
        let found = try Exiftool.metadata(in: shapes.map { folder + "/" + $0.name })
        for shape in shapes where shape.carriesGPS {
            XCTAssertTrue(found[folder + "/" + shape.name, default: []].contains { $0.contains("GPS") }, "\(shape.name): the attack carries GPS")
        }
        func format(_ name: String) -> String { (name as NSString).pathExtension }
        let raws = shapes.map { path(["raw:1"], source: "local:///sku-1/" + $0.name) }
        let skips = shapes.map { path(["skp:\(format($0.name))", "f:\(format($0.name))"], source: "local:///sku-1/" + $0.name) }
        let controls = ["jpg", "png", "webp"].map { ($0, path(["raw:1"], source: "local:///sku-1/clean." + $0), path(["skp:\($0)", "f:\($0)"], source: "local:///sku-1/clean." + $0)) }
        let written = root + "/answers", cleanFiles = clean
        try FileManager.default.createDirectory(atPath: written, withIntermediateDirectories: true)
        try await withService(configuration()) { _, client in
            for (shape, (raw, skip)) in zip(shapes, zip(raws, skips)) {
                let refused = try await client.execute(uri: raw, method: .get) { $0 }
                XCTAssertEqual(refused.status, .unprocessableContent, shape.name)
                XCTAssertEqual(refused.headers[.xContentTypeOptions], "nosniff", shape.name)
                let detail = String(buffer: refused.body)
                XCTAssertTrue(detail.contains("not-raw") && detail.contains(shape.part), "\(shape.name): \(detail)")
                let rendered = try await client.execute(uri: skip, method: .get) { $0 }
                XCTAssertEqual(rendered.status, .ok, shape.name)
                XCTAssertEqual(rendered.headers[.xContentTypeOptions], "nosniff", shape.name)
                let body = Data(buffer: rendered.body)
                let source = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + shape.name))
                XCTAssertNotEqual(body, source, "\(shape.name): skp renders it")
                for telltale in SmuggledMetadata.telltales {
                    XCTAssertNil(body.range(of: telltale), "\(shape.name): \(String(decoding: telltale, as: UTF8.self)) in the answer")
                }
                try body.write(to: URL(fileURLWithPath: written + "/" + shape.name))
            }
            for (name, raw, skip) in controls {
                for uri in [raw, skip] {
                    let answer = try await client.execute(uri: uri, method: .get) { $0 }
                    XCTAssertEqual(answer.status, .ok, name)
                    XCTAssertEqual(answer.headers[.xContentTypeOptions], "nosniff", name)
                    XCTAssertEqual(Data(buffer: answer.body), cleanFiles[name], "\(name): a clean file goes as it is")
                }
            }
            let root = try await client.execute(uri: "/", method: .get) { $0 }
            XCTAssertEqual(root.status, .notFound)
            XCTAssertTrue(String(buffer: root.body).contains("not-found"), "the service's own 404, not the router's empty one")
            let revalidated = try await client.execute(uri: controls[0].1, method: .get, headers: [.ifNoneMatch: "*"]) { $0 }
            XCTAssertEqual(revalidated.status, .notModified)
            for answer in [root, revalidated] { XCTAssertEqual(answer.headers[.xContentTypeOptions], "nosniff", "\(answer.status)") }
        }
        let answers = try Exiftool.metadata(in: shapes.map { written + "/" + $0.name })
        XCTAssertEqual(answers.values.flatMap { $0 }, [], "ExifTool finds nothing in any skp answer: \(answers)")
    }

    /// The security options need the service's leave, and only ever lower its limits.
    func testSecurityOptionsOnlyLowerLimitsAndOnlyWhenAllowed() async throws {
        let small = path(["msr:0.01", "w:100"]), generous = path(["msr:1000", "w:100"]), bytes = path(["msfs:1000", "w:100"])
        let bounded = path(["mrd:120", "rs:fill:300:200"]), unsized = path(["mrd:64"])
        try await withService(configuration()) { _, client in
            let refused = try await client.execute(uri: small, method: .get) { $0 }
            XCTAssertEqual(refused.status, .badRequest)
            XCTAssertTrue(String(buffer: refused.body).contains("--allow-security-options"), String(buffer: refused.body))
        }
        var allowed = configuration()
        allowed.allowSecurityOptions = true
        let control = path(["w:100"])
        try await withService(allowed) { _, client in
            let statuses = [try await client.execute(uri: control, method: .get) { $0.status },
                            try await client.execute(uri: small, method: .get) { $0.status },
                            try await client.execute(uri: bytes, method: .get) { $0.status }]
            XCTAssertEqual(statuses, [.ok, .contentTooLarge, .contentTooLarge], "10,000 pixels and 1,000 bytes: lowered for this URL only")
        }
        allowed.limits.maxPixels = 100_000
        try await withService(allowed) { _, client in
            let status = try await client.execute(uri: generous, method: .get) { $0.status }
            XCTAssertEqual(status, .contentTooLarge, "a billion pixels asked, the service's 100,000 still hold")
        }
        allowed.limits.maxPixels = RenderLimits().maxPixels
        try await withService(allowed) { _, client in
            let fill = try ImageHeader.read(.data(Data(buffer: try await client.execute(uri: bounded, method: .get) { $0.body })))
            XCTAssertEqual([fill.width, fill.height], [120, 80], "the whole box scaled down to 120, its shape kept")
            let whole = try ImageHeader.read(.data(Data(buffer: try await client.execute(uri: unsized, method: .get) { $0.body })))
            XCTAssertEqual(max(whole.width, whole.height), 64)
        }
    }

    /// `wm` draws the service's watermark; `wmu` a shop's own, from any source the service serves,
    /// whose content is in the ETag; `wm` with neither is 400, a `wmu` off the allowed origins 4xx.
    func testWatermarksFromTheServiceAndPerRequest() async throws {
        let logo = root + "/logo.png", shop = input + "/logos/shop.png"
        try GeneratedImage.quadrants(width: 40, height: 40, to: logo)
        try FileManager.default.createDirectory(atPath: input + "/logos", withIntermediateDirectories: true)
        try GeneratedImage.quadrants(width: 20, height: 20, to: shop)
        func wmu(_ source: String) -> String {
            "wmu:" + Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let serviceMark = path(["w:300", "wm:1:soea", "f:png"]), shopMark = path(["w:300", "wm:1:nowe", wmu("local:///logos/shop.png"), "f:png"])
        let foreign = path(["w:300", "wm:1", wmu("http://127.0.0.1:9/logo.png")])
        var configuration = configuration()
        configuration.watermark = logo
        let colours = GeneratedImage.quadrantColours
        try await withService(configuration) { _, client in
            let answer = try await client.execute(uri: serviceMark, method: .get) { $0 }
            let image = try DecodedImage.decode(.data(Data(buffer: answer.body)), maxPixels: .max) { _ in (9999, 9999) }
            XCTAssertEqual(try image.mean(x: image.width - 15, y: image.height - 15, width: 10, height: 10), colours[3], accuracy: 2,
                           "the logo's yellow quarter in the bottom right corner")
            XCTAssertEqual(try image.mean(x: image.width - 35, y: image.height - 35, width: 10, height: 10), colours[0], accuracy: 2)
            let shop1 = try await client.execute(uri: shopMark, method: .get) { $0 }
            let shopImage = try DecodedImage.decode(.data(Data(buffer: shop1.body)), maxPixels: .max) { _ in (9999, 9999) }
            XCTAssertEqual(try shopImage.mean(x: 2, y: 2, width: 6, height: 6), colours[0], accuracy: 2, "the shop's 20 px logo at the top left")
            XCTAssertEqual(try shopImage.mean(x: 12, y: 12, width: 6, height: 6), colours[3], accuracy: 2)
            XCTAssertNotEqual(shop1.headers[.eTag], answer.headers[.eTag])
            let status = try await client.execute(uri: foreign, method: .get) { $0.status }
            XCTAssertEqual(status.code / 100, 4, "a watermark source is checked as any source")
            // A new logo under the same name is a new ETag for every output that draws it.
            try GeneratedImage.noise(width: 24, height: 24, to: shop)
            let again = try await client.execute(uri: shopMark, method: .get) { $0 }
            XCTAssertEqual(again.status, .ok)
            XCTAssertNotEqual(again.headers[.eTag], shop1.headers[.eTag])
        }
        try await withService(self.configuration()) { _, client in
            let answer = try await client.execute(uri: serviceMark, method: .get) { $0 }
            XCTAssertEqual(answer.status, .badRequest)
            XCTAssertTrue(String(buffer: answer.body).contains("no-watermark"), String(buffer: answer.body))
        }
    }

    /// An animated GIF comes out as an animated WebP when the service keeps frames and the client
    /// takes WebP; `maf` lowers the frames, `mafr` refuses large frames, and frames count as pixels.
    func testAnimatedSourcesThroughTheService() async throws {
        try PillowAnimation.gif(width: 120, height: 80, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], durations: [100, 200, 300],
                                to: input + "/sku-1/three.gif")
        try copy("crafted/gif-3000-frames.gif", to: "sku-1/bomb.gif")
        let animated = path(["w:60"], source: "local:///sku-1/three.gif"), still = path(["w:60", "maf:1"], source: "local:///sku-1/three.gif")
        let jpeg = path(["w:60", "f:jpg"], source: "local:///sku-1/three.gif"), bigFrames = path(["w:60", "mafr:0.0001"], source: "local:///sku-1/three.gif")
        let bomb = path(["w:64"], source: "local:///sku-1/bomb.gif"), bombJPEG = path(["w:64", "f:jpg"], source: "local:///sku-1/bomb.gif")
        var configuration = configuration()
        (configuration.limits.maxAnimationFrames, configuration.allowSecurityOptions, configuration.limits.maxPixels) = (3000, true, 500_000)
        let folder = root
        try await withService(configuration) { _, client in
            var frames: [Int] = []
            for (index, uri) in [animated, still, jpeg].enumerated() {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.accept: "image/webp,*/*"]) { $0 }
                XCTAssertEqual(answer.status, .ok)
                let file = folder + "/animation-\(index)"
                try Data(buffer: answer.body).write(to: URL(fileURLWithPath: file))
                frames.append(try PillowAnimation.frames(of: file).count)
            }
            XCTAssertEqual(frames, [3, 1, 1], "animated WebP; maf:1 a still; JPEG a still")
            let statuses = [try await client.execute(uri: bigFrames, method: .get) { $0.status },
                            try await client.execute(uri: bomb, method: .get, headers: [.accept: "image/webp"]) { $0.status },
                            try await client.execute(uri: bomb, method: .get, headers: [.accept: "image/jpeg"]) { $0.status },
                            try await client.execute(uri: bombJPEG, method: .get, headers: [.accept: "image/webp"]) { $0.status }]
            // 9,600 pixels a frame over mafr's 100; 3,000 frames of 256 pixels over 500,000, as animated WebP
            // or (for a client without WebP, the source's own format) GIF; as a JPEG, one frame: served.
            XCTAssertEqual(statuses, [.contentTooLarge, .contentTooLarge, .contentTooLarge, .ok])
        }
    }

    /// What an app adds to a preset (`ThumbnailAdjustments`) is written in the order of the service's
    /// option table, parses to what it says, and is served.
    func testTheAppsURLBuilderWritesAdjustmentsInTheServicesOrder() async throws {
        try FileManager.default.createDirectory(atPath: input + "/logos", withIntermediateDirectories: true)
        try GeneratedImage.quadrants(width: 20, height: 20, to: input + "/logos/shop.png")
        let adjustments = ThumbnailAdjustments(rotation: 90, blur: 4, sharpen: 0.5, watermark: .init(opacity: 0.5, source: "local:///logos/shop.png"),
                                               formatQuality: ["webp": 70, "jpg": 75])
        let names = adjustments.options.map { String($0.prefix { $0 != ":" }) }
        XCTAssertEqual(names, OptionTable.definitions.compactMap { definition in names.first(where: definition.names.contains) },
                       "the order of the service's option table")
        let builder = ThumbnailURLBuilder(service: URL(string: "http://service.test")!, signer: signer)
        let url = try XCTUnwrap(builder.url(source: "local:///sku-1/IMG_1.jpg", preset: "card", scale: 2, cacheBuster: "v2", adjustments: adjustments))
        let parsed = try ImageRequestPath.parse(String(url.path.drop { $0 == "/" }.drop { $0 != "/" })).options
        XCTAssertEqual([parsed.rotation, Int(parsed.blur), parsed.formatQuality[.jpeg], parsed.formatQuality[.webp]], [90, 4, 75, 70])
        XCTAssertEqual(parsed.watermarkSource, "local:///logos/shop.png")
        XCTAssertEqual(parsed.watermark?.opacity, 0.5)
        let plain = try XCTUnwrap(builder.url(source: "local:///sku-1/IMG_1.jpg", preset: "card", scale: 2, cacheBuster: "v2"))
        XCTAssertFalse(plain.path.contains("rot:"), "nothing added when nothing is asked")
        let (adjustedPath, plainPath) = (url.path, plain.path)
        try await withService(configuration()) { _, client in
            let adjusted = try await client.execute(uri: adjustedPath, method: .get) { $0 }
            XCTAssertEqual(adjusted.status, .ok, String(buffer: adjusted.body))
            let original = try await client.execute(uri: plainPath, method: .get) { $0 }
            XCTAssertNotEqual(adjusted.headers[.eTag], original.headers[.eTag])
        }
    }

    /// URLs signed by another's imgproxy URL builder (PyPI's `imgproxy`, which writes its own `g:` and
    /// `rs:` after the options given) are accepted, and do what they say.
    func testURLsFromAnIndependentImgproxyBuilder() async throws {
        let script = """
        import sys
        from imgproxy import ImgProxy
        image = ImgProxy("local:///sku-1/IMG_1.jpg", key=sys.argv[1], salt=sys.argv[2], width=200, resizing_type="fit", extension="png")
        for options in sys.argv[3:]:
            print(image(*options.split("/")))
        """
        let samples = ["rot:90", "fl:1:0/bl:2", "c:0.5:0.5:nowe/pix:4", "sh:0.7/fq:png:0", "z:0.5", "wm:0/mw:300", "g:fp:0.2:0.8/fn:shoe/att:1"]
        let output = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", script, Self.key, Self.salt] + samples)
        let paths = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(paths.count, samples.count)
        let header = try ImageHeader.read(file: input + "/sku-1/IMG_1.jpg")
        try await withService(configuration()) { _, client in
            var sizes: [[Int]] = []
            for path in paths {
                let answer = try await client.execute(uri: path, method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok, "\(path): \(String(buffer: answer.body))")
                let header = try ImageHeader.read(.data(Data(buffer: answer.body)))
                sizes.append([header.width, header.height])
            }
            let height = Int((200 * Double(header.uprightHeight) / Double(header.uprightWidth)).rounded())
            XCTAssertEqual(sizes[0], [200, Int((200 * Double(header.uprightWidth) / Double(header.uprightHeight)).rounded())], "turned, then fitted")
            XCTAssertEqual(sizes[1], [200, height])
            XCTAssertEqual(sizes[4], [100, Int((Double(height) / 2).rounded())], "the zoom scales the box")
            XCTAssertEqual(sizes[5][0], 300, "mw:300 enlarges the 200 px fit")
        }
    }

    /// Switches whose effect the service always has are accepted, and the output stays metadata-free.
    func testAcceptedSwitchesKeepOutputsClean() async throws {
        try copy("photos/DSCN0010.jpg", to: "sku-1/gps.jpg")
        let paths = ["ar:0", "scp:0", "kcr:1", "ph:1", "eth:1"].map { path(["w:200", $0, "f:jpg"], source: "local:///sku-1/gps.jpg") }
        let folder = root
        try await withService(configuration()) { _, client in
            for (index, path) in paths.enumerated() {
                let answer = try await client.execute(uri: path, method: .get) { $0 }
                XCTAssertEqual(answer.status, .ok)
                let file = folder + "/switch-\(index).jpg"
                try Data(buffer: answer.body).write(to: URL(fileURLWithPath: file))
                XCTAssertEqual(try Exiftool.metadata(in: [file])[file], [], path)
            }
        }
    }
}

private func XCTAssertEqual(_ a: [Int], _ b: [Int], accuracy: Int, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, message, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, message, file: file, line: line) }
}

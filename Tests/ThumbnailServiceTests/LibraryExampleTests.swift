import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import Logging
import MarketUploader
import ProductPreview
import Publishing
import TestSupport
import ThumbnailService
import XCTest

/// The README's library examples and the DocC articles' examples, compiled here line for line (each
/// between the set-up its free names need and the checks a user would make), so an API change that
/// breaks one fails the build, and `testEveryExampleShownIsOneCompiledHere` fails when the text shown
/// and the text compiled part. The first two run against real photos and a real router.
final class LibraryExampleTests: FolderTestCase {
    func testPreparingRenderingAndAFolder() async throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "IMG_0001.HEIC")
        try copy("photos/jolla.jpg", to: "photos/sku-1/IMG_1.jpg")
        let uploadedBytes = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("photos/jolla.jpg"))), bytes = uploadedBytes
        let leave = try enterInputFolder()
        defer { leave() }

        var options = PrepareOptions()
        options.maxBytes = 300_000
        let preparer = try ImagePreparer(options: options)   // options out of range throw .invalidOption
        let image = try preparer.prepare(file: "IMG_0001.HEIC")
        // image.data, image.mimeType ("image/jpeg"), image.suggestedFilename ("IMG_0001.jpg"),
        // image.width, image.height, image.quality, image.encodes

        // Bytes in memory (an upload, a download) go through the same loaders, limits and checks.
        let fromBytes = try preparer.prepare(.data(uploadedBytes), stem: "upload")

        // One output at the size a screen needs: imgproxy's resizing types and gravities, any format,
        // optionally under a byte budget that is never exceeded.
        let thumbnail = try ImageRenderer(spec: RenderSpec(width: 240, height: 240, resizing: .fillDown,
                                                           gravity: .attention, format: .webp, maxBytes: 20_000))
            .render(.file("IMG_0001.HEIC"), maxPixels: options.maxPixels)

        // Image work for a server: a fixed number of workers, a bounded queue (.overloaded beyond it);
        // queued work dropped and running work stopped when the caller's task is cancelled, or when it
        // passes its timeout (.timedOut).
        let pool = ImageWorkPool(workers: 2, queueLimit: 16)
        let renderer = try ImageRenderer(spec: RenderSpec(width: 160, height: 160))
        let encoded = try await pool.run(timeout: .seconds(10)) { () throws(ImagePipelineError) in try renderer.render(.data(bytes), maxPixels: 50_000_000) }

        let report = try FolderProcessor(job: FolderJob(inputs: ["photos"], outputFolder: "ready")).run()

        XCTAssertEqual([image.mimeType, image.suggestedFilename], ["image/jpeg", "IMG_0001.jpg"])
        XCTAssertLessThanOrEqual(image.data.count, 300_000)
        XCTAssertEqual(fromBytes.suggestedFilename, "upload.jpg")
        XCTAssertEqual([thumbnail.width, thumbnail.height, thumbnail.format == .webp ? 1 : 0], [240, 240, 1])
        XCTAssertLessThanOrEqual(thumbnail.data.count, 20_000)
        XCTAssertEqual(max(encoded.width, encoded.height), 160)
        XCTAssertEqual(report.failed.count, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: input + "/ready/sku-1/IMG_1.jpg"))
    }

    func testTheServiceOnAnotherRouter() async throws {
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
        let photosFolder = input, cacheFolder = root + "/cache", logger = Logger(label: "example")
        let keyBytes = Data("example-key".utf8), saltBytes = Data("example-salt".utf8)

        var configuration = ServiceConfiguration()
        configuration.root = photosFolder
        configuration.keys = [SigningKey(key: keyBytes, salt: saltBytes)]
        configuration.cacheFolder = cacheFolder
        configuration.bind = ServiceAddress(host: "127.0.0.1", port: 0)   // port 0: any free port
        let thumbnails = try ThumbnailService(configuration, logger: logger)   // a wrong setting throws, named as its flag
        let router = Router(context: ServiceRequestContext.self)
        router.get("/") { _, _ in "my app" }
        thumbnails.addRoutes(to: router)   // GET /health, and every other GET or HEAD as an image URL
        let app = thumbnails.buildApplication(router: router) { url in logger.info("listening on \(url)") }

        let signer = ThumbnailURLSigner(key: keyBytes, salt: saltBytes)
        try await app.test(.live) { client in
            let own = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(String(buffer: own.body), "my app")
            let health = try await client.execute(uri: "/health", method: .get)
            XCTAssertEqual(health.status, .ok)
            let image = try await client.execute(uri: signer.signedPath(options: ["pr:list", "dpr:3"], source: "local:///sku-1/IMG_1.jpg"),
                                                 method: .get, headers: [.accept: "image/jpeg"])
            XCTAssertEqual(image.status, .ok)
            let header = try ImageHeader.read(.data(Data(buffer: image.body)))
            XCTAssertEqual([header.width, header.height], [240, 240])
        }
    }

    /// The README's app snippet: a cell's URL for an image of a product the server listed, decoded
    /// as the client decodes the server's answer, with UIKit's screen stubbed.
    func testTheAppsCellURL() throws {
        let product = try JSONDecoder().decode(ProductResponse.self, from: Data(#"{"id": 1, "name": "Ceramic mug", "images": [{"id": 1, "url": "https://image-host.example/1/0.jpg"}]}"#.utf8))

        let thumbnails = ThumbnailURLBuilder(service: URL(string: "https://img.example.com")!)
        let cell = thumbnails.url(source: product.images[0].url, preset: "list", scale: Int(UIScreen.main.scale))
        // https://img.example.com/insecure/pr:list/dpr:3/aHR0cHM6Ly9pbWFn…: the 240 px square the list cell shows

        let text = try XCTUnwrap(cell?.absoluteString)
        XCTAssertTrue(text.hasPrefix("https://img.example.com/insecure/pr:list/dpr:3/"), text)
        // The source in base64url, split into segments as imgproxy's builders split it.
        XCTAssertEqual(Base64URL.decode(text.split(separator: "/").dropFirst(5).joined()), Data("https://image-host.example/1/0.jpg".utf8))
    }

    /// The README's placeholder snippet, run against the service as `serve --only-presets` runs it:
    /// the info answer fetched with URLSession and decoded, the cell's colour set and its image view
    /// given the hash's PNG (UIKit stubbed, the PNG read by libvips as `UIImage(data:)` reads it).
    func testTheAppsCellPlaceholder() async throws {
        try copy("photos/jolla.jpg", to: "1/0.jpg")
        let service = try await startService(["--root", input, "--only-presets"], environment: ["MARKET_IMAGES_KEY": ""])
        let product = try JSONDecoder().decode(ProductResponse.self, from: Data(#"{"id": 1, "name": "Ceramic mug", "images": [{"id": 1, "url": "local:///1/0.jpg"}]}"#.utf8))
        let thumbnails = ThumbnailURLBuilder(service: service.base)
        let photoView = UIImageView()

        let imageURL = URL(string: product.images[0].url)!
        let (answer, _) = try await URLSession.shared.data(from: thumbnails.infoURL(for: imageURL)!)
        let info = try JSONDecoder().decode(ImageInfo.self, from: answer)
        let colour = info.dominantColour
        photoView.backgroundColor = UIColor(red: colour.red, green: colour.green, blue: colour.blue, alpha: 1)
        photoView.image = UIImage(data: info.thumbHash.image().pngData())   // then the thumbnail replaces it

        let header = try ImageHeader.read(file: input + "/1/0.jpg")
        XCTAssertEqual([info.width, info.height], [header.uprightWidth, header.uprightHeight])
        XCTAssertEqual(photoView.backgroundColor?.hex, info.dominantColour.hex)
        let image = try XCTUnwrap(photoView.image, "the PNG is an image")
        XCTAssertEqual(image.size.width, 32, "the longer side of the photo, at 32 px")
        XCTAssertEqual(image.size.width / image.size.height, CGFloat(info.thumbHash.aspectRatio), accuracy: 0.05)
    }

    /// ProductPreview's article: the preview on a router of one's own, answering only with the token.
    func testThePreviewOnARouter() async throws {
        try copy("photos/jolla.jpg", to: "products/mug/IMG_1.jpg")
        let leave = try enterInputFolder()
        defer { leave() }

        let bind = ServiceAddress(host: "127.0.0.1", port: 8800), logger = Logger(label: "preview")
        let photos = PhotoCache(prepareOptions: PrepareOptions())   // the cache publish uploads from
        let preview = try ProductPreview(PreviewConfiguration(productsFolder: "products", photoCache: photos), bind: bind, logger: logger)
        let access = PreviewAccess<BasicRequestContext>(bind: bind, logger: logger)
        let router = Router()
        preview.addRoutes(to: router, access: access)
        print(access.address("http://127.0.0.1:8800"))   // the address to open: it carries this run's token

        XCTAssertEqual(preview.productFolders.map { ($0 as NSString).lastPathComponent }, ["mug"])
        XCTAssertTrue(access.address("http://127.0.0.1:8800").hasSuffix("/?token=" + access.token))
        try await Application(router: router).test(.router) { client in
            let refused = try await client.execute(uri: "/", method: .get)
            XCTAssertEqual(refused.status, .forbidden, "no token, no page")
        }
    }

    /// The DocC articles' examples (one per library).
    func testTheReferenceExamples() throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "IMG_0001.HEIC")
        try FileManager.default.createDirectory(atPath: input + "/products/mug", withIntermediateDirectories: true)
        try #"{"name": "Ceramic mug", "price": 12000, "sael_price": 10800}"#.write(toFile: input + "/products/mug/product.json", atomically: true, encoding: .utf8)
        let leave = try enterInputFolder()
        defer { leave() }

        let builder = ThumbnailURLBuilder(service: URL(string: "https://img.example.com")!)
        let cell = builder.url(for: URL(string: "https://openmarket.example.com/images/1.jpg")!, preset: "list", scale: 3)
        // https://img.example.com/insecure/pr:list/dpr:3/aHR0cHM6…: the 240 px square an 80-point cell shows
        XCTAssertTrue(cell?.absoluteString.hasPrefix("https://img.example.com/insecure/pr:list/dpr:3/aHR0cHM6") ?? false, "\(String(describing: cell))")

        let header = try ImageHeader.read(file: "IMG_0001.HEIC")
        // header.uprightWidth, header.uprightHeight: the size the photo is shown at, EXIF orientation applied
        XCTAssertEqual(header.uprightWidth * header.uprightHeight, header.width * header.height)
        XCTAssertGreaterThan(header.uprightWidth, 1000)

        var settings = ServiceConfiguration()
        settings.root = "/no/such/folder"
        for problem in settings.problems { print(problem) }   // root: /no/such/folder is not a folder
        XCTAssertEqual(settings.problems.first?.description, "root: /no/such/folder is not a folder")

        let (fields, problem) = ProductFile.read(in: "products/mug")
        // fields: the name, price, sale_price… the file sets well; problem: what is wrong with the rest
        XCTAssertEqual(fields?.price, 12000)
        XCTAssertTrue(problem?.description.contains("sael_price") ?? false, String(describing: problem))
    }

    /// Makes the test's input folder the current one, for examples that name files as a user would.
    private func enterInputFolder() throws -> () -> Void {
        let previous = FileManager.default.currentDirectoryPath
        guard FileManager.default.changeCurrentDirectoryPath(input) else { throw CocoaError(.fileNoSuchFile) }
        return { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
    }

    /// Compiled, not run: it talks to a real OpenMarket server (the uploader's tests run the same calls
    /// against a loopback one).
    private func registering(image: EncodedImage, identifier: String, secret: String) async throws -> ProductResponse {
        let client = OpenMarketClient(baseURL: URL(string: "https://openmarket.yagom-academy.kr")!, dialect: .openmarket)
        let product = try await client.register(
            ProductDraft(name: "Ceramic mug", description: "Hand-thrown, holds 350 ml.", price: 12000, stock: 5),
            images: [UploadImage(filename: image.suggestedFilename, data: image.data)],
            credentials: .vendor(identifier: identifier, secret: Secret(secret)))
        return product
    }

    /// Compiled, not run, for the same reason (PublishingTests run the engine through a fake transport).
    private func publishing(server: URL, client: OpenMarketClient, credentials: Credentials, folders: [String]) async throws {
        var run = try PublishRun(productsFolder: "products", server: server, client: client, credentials: credentials,
                                 photos: PhotoCache(prepareOptions: PrepareOptions()))
        for step in try await run.plan(folders: folders) { print(await run.apply(step).result) }
    }

    /// Every ``Symbol`` a catalogue links to is declared public in its target, so a renamed type fails
    /// here and not only in `scripts/docs` (which CI does not run).
    func testTheReferenceLinksOnlyToPublicDeclarations() throws {
        let sources = Fixture.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        var links = 0
        for target in ["MarketUploader", "ImagePipeline", "ThumbnailService", "Publishing", "ProductPreview"] {
            let folder = sources.appendingPathComponent(target)
            var code = "", articles = ""
            for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
                let text = (try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)) ?? ""
                if path.hasSuffix(".swift") { code += text } else if path.hasSuffix(".md") { articles += text }
            }
            for match in articles.matches(of: /``([A-Za-z]+)(?:\/([A-Za-z]+)[^`]*)?``/) where match.output.1 != target || match.output.2 != nil {
                links += 1
                let type = String(match.output.1)
                XCTAssertNotNil(code.firstMatch(of: try Regex("public (final class|class|struct|enum|protocol|actor|typealias) \(type)\\b")),
                                "\(target).docc links to \(type), which \(target) does not declare public")
                if let member = match.output.2 {
                    XCTAssertNotNil(code.firstMatch(of: try Regex("public (static )?(mutating )?(func|var|let|init) ?\(member)\\b")),
                                    "\(target).docc links to \(type)/\(member), which is not public")
                }
            }
        }
        XCTAssertGreaterThan(links, 30)
    }

    /// Each ```swift block of the README and of every DocC article, less its imports, is in this file
    /// as shown (indented into a function body).
    func testEveryExampleShownIsOneCompiledHere() throws {
        let repository = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        var texts = [("README.md", try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8))]
        let sources = repository.appendingPathComponent("Sources")
        for path in try FileManager.default.subpathsOfDirectory(atPath: sources.path) where path.contains(".docc/") && path.hasSuffix(".md") {
            texts.append((path, try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)))
        }
        let compiled = try String(contentsOfFile: #filePath, encoding: .utf8)
        var examples = 0
        for (name, text) in texts {
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let code = block.components(separatedBy: "\n```")[0].split(separator: "\n", omittingEmptySubsequences: false)
                    .drop { $0.hasPrefix("import ") || $0.isEmpty }
                let indented = code.map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
                examples += 1
                XCTAssertTrue(compiled.contains(indented), "\(name): an example that LibraryExampleTests does not compile:\n\(code.joined(separator: "\n"))")
            }
        }
        XCTAssertGreaterThanOrEqual(examples, 8, "the README's four and the DocC articles'")
    }
}

/// The UIKit names the README's app snippets use, with UIKit's signatures, so they build on Linux.
/// The screen is an iPhone 15 Pro's.
private struct UIScreen {
    static let main = UIScreen()
    let scale = 3.0
}

/// Keeps the components it was given, to compare with what the snippet meant to set.
private struct UIColor {
    let colour: RGBAColour
    init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        colour = RGBAColour(red: Double(red), green: Double(green), blue: Double(blue), alpha: Double(alpha))
    }
    var hex: String { colour.hex }
}

/// Like UIKit's, nil for data that is not an image: here libvips reads it, for its size.
private struct UIImage {
    let size: CGSize
    init?(data: Data) {
        guard let header = try? ImageHeader.read(.data(data)) else { return nil }
        size = CGSize(width: header.width, height: header.height)
    }
}

private final class UIImageView {
    var image: UIImage?
    var backgroundColor: UIColor?
}

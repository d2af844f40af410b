import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import ImagePipeline
import Logging
import ProductPreview
import Publishing
import TestSupport
import ThumbnailService
import XCTest

/// The preview as a library, mounted on a router as `market-images preview` mounts it and spoken to
/// over loopback HTTP (HummingbirdTesting's live server): who gets in, what the pages hold, what the
/// prepared-photo route refuses, and one access-log line per request.
final class ProductPreviewRoutesTests: FolderTestCase {
    static let hostileName = "<script>alert('x')</script> & co"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "lamp/IMG_1.jpg")
        try copy("hostile/corrupted.jpg", to: "lamp/IMG_2.jpg")
        try JSONSerialization.data(withJSONObject: ["name": Self.hostileName, "description": "A lamp for the preview's tests.",
                                                    "price": 5000, "currency": "KRW", "stock": 2])
            .write(to: URL(fileURLWithPath: input + "/lamp/product.json"))
        try copy("photos/DSCN0010.jpg", to: "camera/IMG_1.jpg")
    }

    func testOnlyRequestsWithThisRunsTokenOrItsCookieGetIn() async throws {
        try await withPreview { client, token, _ in
            for path in ["/", "/product/lamp", "/health", "/static/preview.css", "/unsafe/pr:list/plain/local:///lamp/IMG_1.jpg"] {
                let refused = try await client.execute(uri: path, method: .get) { $0 }
                XCTAssertEqual(refused.status, .forbidden, path)
                XCTAssertTrue(String(buffer: refused.body).contains("no-token"), path)
            }
            let wrong = try await client.execute(uri: "/?token=" + (token.hasPrefix("0") ? "1" : "0") + token.dropFirst(), method: .get) { $0.status }
            XCTAssertEqual(wrong, .forbidden, "a token one character off")
            // A page whose name was rebound to 127.0.0.1 sends its own name, with the right token.
            let connection = try RawConnection(port: try XCTUnwrap(client.port))
            _ = connection.send("GET /?token=\(token) HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            var foreign = Data()
            while let chunk = connection.receive(timeout: 30), !chunk.isEmpty { foreign.append(chunk) }
            let answer = String(decoding: foreign, as: UTF8.self)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 403") && answer.contains("foreign-host"), answer)

            let opened = try await client.execute(uri: "/?token=" + token, method: .get) { $0 }
            XCTAssertEqual(opened.status, .ok)
            XCTAssertEqual(opened.headers[.setCookie], "market_images_preview=\(token); Path=/; HttpOnly; SameSite=Strict")
            let cookie: HTTPFields = [.cookie: "other=1; market_images_preview=\(token)"]
            let thumbnail = try await client.execute(uri: "/unsafe/pr:list/dpr:2/f:jpg/plain/local:///lamp/IMG_1.jpg", method: .get, headers: cookie) { $0 }
            XCTAssertEqual(thumbnail.status, .ok, "the thumbnail service's routes, with the cookie")
            let header = try ImageHeader.read(.data(Data(buffer: thumbnail.body)))
            XCTAssertEqual([header.width, header.height], [160, 160])
            XCTAssertNil(thumbnail.headers[.setCookie], "the cookie is set once, from the token")
        }
    }

    func testThePagesShowTheFolderWithMarkupAsTextAndEveryFailureNamed() async throws {
        try await withPreview { client, token, _ in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            let index = try await client.execute(uri: "/", method: .get, headers: cookie) { $0 }
            let html = String(buffer: index.body)
            XCTAssertEqual(index.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'"), true)
            XCTAssertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co") || html.contains("&lt;script&gt;alert('x')&lt;/script&gt; &amp; co"), html)
            XCTAssertFalse(html.contains("<script>alert"), "a product's name is text, never markup")
            XCTAssertTrue(html.contains("2 products"), html)
            let page = try await client.execute(uri: "/product/lamp", method: .get, headers: cookie) { $0 }
            let text = String(buffer: page.body)
            XCTAssertTrue(text.contains("<b>IMG_2.jpg</b>: described: "), "a failed photo, worded by the host:\n\(text)")
            let unchanged = try await client.execute(uri: "/product/lamp", method: .get, headers: cookie + [HTTPField(name: .ifNoneMatch, value: page.headers[.eTag] ?? "")]) { $0 }
            XCTAssertEqual(unchanged.status, .notModified, "FIRST\n\(text)\nSECOND\n\(String(buffer: unchanged.body))")
            let head = try await client.execute(uri: "/product/lamp", method: .head, headers: cookie) { $0 }
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.body.readableBytes, 0)
            let missing = try await client.execute(uri: "/product/nothing-here", method: .get, headers: cookie) { $0.status }
            XCTAssertEqual(missing, .notFound)
        }
    }

    /// A folder with a `product.json` and no photos is a product the page names with what it lacks;
    /// a folder with several problems lists them all, with its warnings.
    func testEveryProblemOfAFolderIsListedAndAFolderWithoutPhotosIsShown() async throws {
        try FileManager.default.createDirectory(atPath: input + "/empty", withIntermediateDirectories: true)
        try #"{"name":"Empty","description":"No photos yet, just words.","price":1000,"stock":1}"#.write(toFile: input + "/empty/product.json", atomically: true, encoding: .utf8)
        try #"{"name":"Mu","price":-5}"#.write(toFile: input + "/camera/product.json", atomically: true, encoding: .utf8)
        try copy("photos/jolla.jpg", to: "camera/relax.jp2")
        try copy("photos/jolla.jpg", to: "camera/more/IMG_9.jpg")
        try await withPreview { client, token, _ in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            let index = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie) { $0 }.body)
            XCTAssertTrue(index.contains("3 products"), index)
            let empty = String(buffer: try await client.execute(uri: "/product/empty", method: .get, headers: cookie) { $0 }.body)
            XCTAssertTrue(empty.contains("no photos: a product needs 1 to 5"), empty)
            let camera = String(buffer: try await client.execute(uri: "/product/camera", method: .get, headers: cookie) { $0 }.body)
            for problem in ["a product needs description, stock", "name must be 3–100 characters", "price must be 0 or more",
                            "relax.jp2: a JPEG 2000 image is not read", "photos in its subfolders (more) are not read"] {
                XCTAssertTrue(camera.contains(problem), "\(problem):\n\(camera)")
            }
        }
    }

    /// `/prepared/` serves the photo cache's files of a product folder and nothing else, whatever
    /// the path spells.
    func testPreparedPhotosComeFromTheCacheOnly() async throws {
        try await withPreview { client, token, _ in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            let page = try await client.execute(uri: "/product/camera", method: .get, headers: cookie) { String(buffer: $0.body) }
            let link = try XCTUnwrap(page.range(of: #"/prepared/camera/[^"]+"#, options: .regularExpression).map { String(page[$0]) }, page)
            let photo = try await client.execute(uri: link, method: .get, headers: cookie) { $0 }
            XCTAssertEqual(photo.status, .ok)
            XCTAssertEqual(photo.headers[.contentType], "image/jpeg")
            XCTAssertEqual(try ImageHeader.read(.data(Data(buffer: photo.body))).width, 640)
            for path in ["/prepared/camera/../../../in/camera/IMG_1.jpg", "/prepared/camera/%2E%2E/manifest.json", "/prepared/camera/..%2Fx.jpg",
                         "/prepared/nothing/IMG_1.jpg", "/prepared/camera", "/prepared/camera/manifest.json"] {
                let refused = try await client.execute(uri: path, method: .get, headers: cookie) { $0.status }
                XCTAssertEqual(refused, .notFound, path)
            }
        }
    }

    /// A blurry photo and a photo like another product's are among a product's things to fix.
    func testPhotosThatLookBadOrAlikeAreListedToFix() async throws {
        try DegradedPhoto.make([("photos/jolla.jpg", input + "/lamp/IMG_3.jpg", .blur(sigma: 3)),
                                ("photos/DSCN0010.jpg", input + "/lamp/IMG_4.jpg", .copy(scale: 0.4, quality: 60))])
        try await withPreview { client, token, _ in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            let lamp = String(buffer: try await client.execute(uri: "/product/lamp", method: .get, headers: cookie) { $0 }.body)
            XCTAssertTrue(lamp.contains("IMG_3.jpg: looks blurry"), lamp)
            XCTAssertTrue(lamp.contains("IMG_4.jpg looks like camera/IMG_1.jpg"), lamp)
        }
    }

    /// With a publish record, a folder never published shows "new" even with a failed photo, and a
    /// recorded one with problems says what it is and why publish cannot compare yet.
    func testPublishStateIsShownForFoldersWithProblems() async throws {
        let server = URL(string: "https://openmarket.test")!
        var ledger = PublishLedger()
        ledger.entries[PublishLedger.key(server: server, folder: "camera")] = .init(state: .registered, productID: 77, at: Date())
        try ledger.save(to: input)
        try #"{"name":"Mu"}"#.write(toFile: input + "/camera/product.json", atomically: true, encoding: .utf8)
        try await withPreview(server: server) { client, token, _ in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            let lamp = String(buffer: try await client.execute(uri: "/product/lamp", method: .get, headers: cookie) { $0 }.body)
            XCTAssertTrue(lamp.contains("new: not yet published to https://openmarket.test"), lamp)
            let camera = String(buffer: try await client.execute(uri: "/product/camera", method: .get, headers: cookie) { $0 }.body)
            XCTAssertTrue(camera.contains("published as product 77; fix what is listed before publish can compare"), camera)
        }
    }

    /// A source over `serve`'s 20 MB default (a scan `publish` takes) gets its thumbnail, and a
    /// thumbnail asked again comes from the cache, not from another decode.
    func testLargeSourcesPreviewAndThumbnailsAreCached() async throws {
        try GeneratedImage.noise(width: 3000, height: 3000, to: input + "/camera/IMG_2.png")
        XCTAssertGreaterThan(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: input + "/camera/IMG_2.png")[.size] as? Int), 20_000_000)
        try await withPreview { client, token, lines in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            for path in ["IMG_2.png", "IMG_1.jpg", "IMG_1.jpg"] {
                let answer = try await client.execute(uri: "/insecure/pr:list/plain/local:///camera/\(path)", method: .get, headers: cookie) { $0 }
                XCTAssertEqual(answer.status, .ok, path)
            }
            let logged = lines.all.filter { $0.contains(" ms cache=") }.map { String($0.suffix(from: $0.range(of: "cache=")!.lowerBound)) }
            XCTAssertEqual(logged, ["cache=miss", "cache=miss", "cache=hit"])
        }
    }

    /// One access-log line per request: pages, thumbnails and refusals alike, never the token.
    func testEveryRequestHasOneAccessLogLine() async throws {
        try await withPreview { client, token, lines in
            let cookie: HTTPFields = [.cookie: "market_images_preview=\(token)"]
            _ = try await client.execute(uri: "/static/preview.css", method: .get, headers: cookie) { $0.status }
            _ = try await client.execute(uri: "/unsafe/pr:list/plain/local:///camera/IMG_1.jpg", method: .get, headers: cookie) { $0.status }
            _ = try await client.execute(uri: "/product/camera", method: .get) { $0.status }
            let logged = lines.all.filter { $0.contains(" ms cache=") }
            XCTAssertEqual(logged.count, 3, "\(logged)")
            XCTAssertTrue(logged[0].hasPrefix("GET /static/preview.css 200 "), logged[0])
            XCTAssertTrue(logged[1].hasPrefix("GET /…/pr:list/plain/local:///camera/IMG_1.jpg 200 "), logged[1])
            XCTAssertTrue(logged[2].hasPrefix("GET /product/camera 403 "), logged[2])
            XCTAssertFalse(lines.all.joined().contains(token))
        }
    }
}

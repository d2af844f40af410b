import Foundation
import ImagePipeline
import MarketUploader
import ProductPreview
import Publishing
import TestSupport
import XCTest

/// The preview run in process as `market-images preview` runs it (`LivePreview`) and looked at with
/// headless Chromium: what the browser rendered (its DOM after the script ran, the image sizes it
/// loaded, screenshots at a desktop and a phone width) is what is asserted. Screenshots are kept in
/// `.build/test-artifacts/preview/`.
final class PreviewInBrowserTests: FolderTestCase {
    static let korean = "도자기 머그컵"
    static let hostileName = "<script>alert('x')</script> & co"

    /// The bundled samples, plus a product with a Korean name, a discount, stock 0, six photos (one
    /// damaged), and one whose name is markup.
    override func setUpWithError() throws {
        try super.setUpWithError()
        let samples = Fixture.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path
        for product in ["sku-camera", "sku-phone"] {
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: samples + "/" + product, toPath: input + "/" + product)
        }
        let mug = ["photos/DSCN0010.jpg", "photos/flowers.jpeg", "photos/jolla.jpg", "orientation/Landscape_6.jpg",
                   "photos/iphone_13_pro_max.HEIC", "hostile/corrupted.jpg"]
        for (index, photo) in mug.enumerated() {
            try copy(photo, to: "mug/IMG_\(index + 1).\((photo as NSString).pathExtension)")
        }
        try product(folder: "mug", name: Self.korean, price: 12000, discounted: 9900, stock: 0)
        try copy("alpha/alpha-layer-1-fill.png", to: "markup/cutout.png")
        try product(folder: "markup", name: Self.hostileName, price: 5000, discounted: nil, stock: 1)
    }

    private func product(folder: String, name: String, price: Double, discounted: Double?, stock: Int) throws {
        var fields: [String: Any] = ["name": name, "description": "A product for the preview tests.", "price": price, "currency": "KRW", "stock": stock]
        fields["sale_price"] = discounted
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: input + "/\(folder)/product.json"))
    }

    /// The preview of `input`, compared with the one server its publish record knows, if any.
    private func start(dialect: Dialect? = nil) async throws -> LivePreview {
        let photos = PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache")
        return try await startPreview(PreviewConfiguration(productsFolder: input, photoCache: photos,
                                                           server: RecordedServer(productsFolder: input).server, dialect: dialect))
    }

    /// Runs `body` (Chromium, or a raw socket the test waits on) off Swift's shared threads, which
    /// serve the preview.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// `<tag … data-folder="NAME" …>`'s images as the browser loaded them: "WxH" per image.
    private func loaded(_ dom: String) -> [String] {
        matches(#"data-loaded="(\d+x\d+)""#, in: dom)
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// Where a screenshot `name` is kept, with none left there from an earlier run.
    private func screenshot(_ name: String) throws -> String {
        let artifacts = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-artifacts/preview").path
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let file = artifacts + "/\(name).png"
        try? FileManager.default.removeItem(atPath: file)
        return file
    }

    /// The screenshot at `file` is `width`×`height` device pixels and shows something, not one flat colour.
    private func assertNotBlank(_ file: String, width: Int, height: Int) throws {
        let image = try DecodedImage.decode(file: file, maxPixels: .max) { _ in (100_000, 100_000) }
        XCTAssertEqual([image.width, image.height], [width, height], file)
        let cells = try image.grid()
        let spread = cells.flatMap { $0 }.max()! - cells.flatMap { $0 }.min()!
        XCTAssertGreaterThan(spread, 5, "\(file) shows something, not one flat colour: \(cells)")
    }

    /// The list, the grid (on a desktop and a phone at 3x) and a product page as the browser rendered
    /// them, with screenshots at a desktop and a phone width from the same visits; then what other
    /// hosts and other users of the machine get. One preview serves them all: the photos are prepared
    /// once, and each Chromium visit is one page.
    func testThePagesShowTheCatalogueAsTheAppWouldToItsOwnAddressOnly() async throws {
        let preview = try await start()
        try await checkListAndGrid(preview)
        try await checkProductPage(preview)
        try await checkOnlyItsOwnAddressWithThisRunsTokenIsAnswered(preview)
    }

    private func checkListAndGrid(_ preview: LivePreview) async throws {
        let listShot = try screenshot("desktop-list")
        let list = try await blocking { try HeadlessChromium.dom(preview.url("/"), screenshot: listShot) }
        for text in ["Garden photo prints", "휴대폰 사진 엽서 세트", Self.korean, "₩9,900", "<s class=\"original\">₩12,000</s>", "$15.50", "Sold out",
                     "3 in stock", "&lt;script&gt;alert('x')&lt;/script&gt; &amp; co"] {
            XCTAssertTrue(list.contains(text), "the list shows \(text):\n\(list)")
        }
        XCTAssertFalse(list.contains("<script>alert"), "a product's name is text, never markup")
        XCTAssertEqual(loaded(list), Array(repeating: "80x80", count: 4), "one 80 px list thumbnail per product at 1x:\n\(list)")
        XCTAssertTrue(list.contains("3 problems"), "the mug's six photos, its damaged one and its blank one (flowers.jpeg, a vignette with no sharp detail) are counted")
        try assertNotBlank(listShot, width: 1280, height: 900)

        let grid = try await blocking { try HeadlessChromium.dom(preview.url("/?view=grid")) }
        XCTAssertTrue(grid.contains("class=\"products grid\""))
        XCTAssertEqual(loaded(grid), Array(repeating: "200x200", count: 4), grid)
        // A phone at 3x loads the 3x thumbnails, not the 1x ones scaled up: 600 pixels, shown as 200
        // CSS pixels, or all the source has (the 640×480 camera photo is never enlarged: 480, shown as 160).
        let phoneShot = try screenshot("phone-grid")
        let phone = try await blocking { try HeadlessChromium.dom(preview.url("/?view=grid"), width: 390, height: 844, scale: 3, screenshot: phoneShot) }
        XCTAssertEqual(loaded(phone), ["200x200", "160x160", "160x160", "200x200"], phone)
        try assertNotBlank(phoneShot, width: 390 * 3, height: 844 * 3)
        let chosen = matches(#"data-source="([^"]+)""#, in: phone)
        XCTAssertEqual(chosen.count, 4)
        for source in chosen {
            XCTAssertTrue(source.contains("/pr:grid/dpr:3/"), source)
            let answer = try await preview.get(source)
            let header = try ImageHeader.read(.data(answer.body))
            XCTAssertTrue([[600, 600], [480, 480]].contains([header.width, header.height]), "\(source): \(header.width)×\(header.height)")
        }
    }

    /// Every prepared photo and what went wrong, on a desktop and on a phone.
    private func checkProductPage(_ preview: LivePreview) async throws {
        let desktopShot = try screenshot("desktop-product")
        let page = try await blocking { try HeadlessChromium.dom(preview.url("/product/mug"), screenshot: desktopShot) }
        let captions = matches(#"<span class="source">([^<]+)</span>"#, in: page)
        XCTAssertEqual(captions, ["1. IMG_1.jpg", "2. IMG_2.jpeg", "3. IMG_3.jpg", "4. IMG_4.jpg", "5. IMG_5.HEIC"], "upload order")
        let shown = matches(#"<span class="dims">(\d+×\d+) px</span>"#, in: page).map { $0.replacingOccurrences(of: "×", with: "x") }
        // The full-size photo of each, as loaded (the compare images are lazy and stay unloaded).
        let prepared = matches(#"<img class="prepared" src="[^"]+" width="\d+" height="\d+" alt="[^"]+" data-loaded="(\d+x\d+)""#, in: page)
        XCTAssertEqual(prepared, shown, "the browser loaded each prepared photo at its full size:\n\(page)")
        XCTAssertEqual(shown.first, "640x480")
        for bytes in matches(#"<span class="bytes">([\d,]+) of 300,000 bytes"#, in: page) {
            XCTAssertLessThanOrEqual(Int(bytes.replacingOccurrences(of: ",", with: "")) ?? .max, 300_000)
        }
        XCTAssertEqual(matches(#"<span class="bytes">([\d,]+) of"#, in: page).count, 5)
        XCTAssertTrue(page.contains("mug: 6 photos; the server takes at most 5 per product"), page)
        XCTAssertTrue(page.contains("<li class=\"failure\"><b>IMG_6.jpg</b>:"), "the damaged photo is named with its reason")
        XCTAssertTrue(page.contains("<s class=\"original\">₩12,000</s>") && page.contains("Sold out"))
        XCTAssertTrue(page.contains("encodes"), page)
        try assertNotBlank(desktopShot, width: 1280, height: 900)
        let phoneShot = try screenshot("phone-product")
        let phone = try await blocking { try HeadlessChromium.dom(preview.url("/product/mug"), width: 390, height: 844, screenshot: phoneShot) }
        XCTAssertEqual(matches(#"<span class="source">([^<]+)</span>"#, in: phone), captions)
        try assertNotBlank(phoneShot, width: 390, height: 844)
    }

    /// DNS rebinding and other users of the machine: a request that names another host (even with the
    /// token), or has no token, gets 403 and nothing of the catalogue; the address with the token sets
    /// the cookie that lets the page's own requests in.
    private func checkOnlyItsOwnAddressWithThisRunsTokenIsAnswered(_ preview: LivePreview) async throws {
        let port = try XCTUnwrap(preview.base.port)
        let token = try XCTUnwrap(preview.token)
        func head(_ host: String, _ path: String, cookie: String? = nil) async throws -> String {
            try await blocking {
                let connection = try RawConnection(port: port)
                connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n")
                var answer = Data()
                while let chunk = connection.receive(timeout: 30), !chunk.isEmpty { answer.append(chunk) }
                return String(decoding: answer, as: UTF8.self)
            }
        }
        for (host, path) in [("evil.example:\(port)", "/?token=\(token)"), ("127.0.0.1.evil.example:\(port)", "/?token=\(token)"),
                             ("127.0.0.1:\(port)", "/"), ("127.0.0.1:\(port)", "/?token=\(token.hasPrefix("0") ? "1" : "0")\(token.dropFirst())"),
                             ("127.0.0.1:\(port)", "/product/mug"), ("127.0.0.1:\(port)", "/health")] {
            let answer = try await head(host, path)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 403"), "\(host) \(path): \(answer.prefix(200))")
            XCTAssertFalse(answer.contains(Self.korean), "\(host) \(path)")
        }
        let opened = try await head("localhost:\(port)", "/?token=\(token)")
        XCTAssertTrue(opened.hasPrefix("HTTP/1.1 200"), String(opened.prefix(200)))
        XCTAssertTrue(opened.contains("market_images_preview=\(token); Path=/; HttpOnly; SameSite=Strict"), String(opened.prefix(600)))
        let product = try await head("[::1]:\(port)", "/product/mug", cookie: "market_images_preview=\(token)")
        XCTAssertTrue(product.hasPrefix("HTTP/1.1 200") && product.contains(Self.korean), String(product.prefix(200)))

        // A real browser on a page whose name now resolves to the preview's address.
        let rebound = try await blocking { try HeadlessChromium.dom(URL(string: "http://rebind.test:\(port)/?token=\(token)")!, resolving: "rebind.test") }
        XCTAssertFalse(rebound.contains(Self.korean), rebound)
        XCTAssertTrue(rebound.contains("foreign-host"), rebound)
    }

    /// A publish record shows what publishing would change; then changing a photo in the folder and
    /// reloading shows the new photo: new thumbnail and photo URLs, a new page ETag, and the browser
    /// loads the new size. One preview, so the photos are prepared once.
    func testThePublishRecordShowsWhatWouldChangeAndAChangedPhotoShowsOnReload() async throws {
        let server = "http://127.0.0.1:9"
        let ledger: [String: Any] = ["entries": [
            "\(server)|sku-camera": ["state": "registered", "productID": 41, "at": "2026-11-01T00:00:00Z",
                                     "sent": ["fields": ["name": "Garden photo prints", "description": "An older description.",
                                                         "price": 12000, "currency": "KRW", "stock": 3, "sale_price": 9900],
                                              "images": ["IMG_1.jpg 0000"]]],
        ]]
        try JSONSerialization.data(withJSONObject: ledger).write(to: URL(fileURLWithPath: input + "/.openmarket-published.json"))
        let preview = try await start(dialect: .openmarket)
        let list = try await blocking { try HeadlessChromium.dom(preview.url("/")) }
        XCTAssertTrue(list.contains("photos changed since product 41 was published: publish needs --recreate"), list)
        XCTAssertTrue(list.contains("new: not yet published to http://localhost:9"), list)
        let page = try await blocking { try HeadlessChromium.dom(preview.url("/product/sku-camera")) }
        XCTAssertTrue(page.contains("<li class=\"change\"><b>description</b>: An older description. →"), page)

        let before = try await blocking { try HeadlessChromium.dom(preview.url("/product/markup")) }
        let firstPage = try await preview.get("/product/markup")
        XCTAssertEqual(loaded(before).first, "2048x1536", before)
        try FileManager.default.removeItem(atPath: input + "/markup/cutout.png")
        try copy("orientation/Landscape_6.jpg", to: "markup/cutout.jpg")
        let after = try await blocking { try HeadlessChromium.dom(preview.url("/product/markup")) }
        XCTAssertEqual(loaded(after).first, "600x450", after)
        let secondPage = try await preview.get("/product/markup", headers: ["If-None-Match": firstPage.header("ETag") ?? ""])
        XCTAssertEqual(secondPage.status, 200, "a changed folder is a changed page")
        let unchanged = try await preview.get("/product/markup", headers: ["If-None-Match": secondPage.header("ETag") ?? ""])
        XCTAssertEqual(unchanged.status, 304)
    }
}

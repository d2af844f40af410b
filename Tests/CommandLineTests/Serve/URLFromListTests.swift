import Foundation
import MarketUploader
import TestSupport
import XCTest

/// `url -` on what a developer pipes into it: `list --json` from a real (loopback) OpenMarket server,
/// and lines of which some cannot be sources; and `url` with the service's own settings file.
final class URLFromListTests: CommandLineTestCase {
    private let keys = ["MARKET_IMAGES_KEY": "736563726574", "MARKET_IMAGES_SALT": "68656C6C6F"]

    /// `list --json | url - pr:list dpr:3`: one thumbnail URL per product image, in the list's order,
    /// each signed for that image's URL on the server's image host; `--info` the same as /info URLs.
    func testListJSONBecomesOneURLPerProductImage() async throws {
        let client = try await startServer(.openmarket)
        _ = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        var cup = Self.draft
        cup.name = "Tea cup"
        _ = try await client.register(cup, images: [try Self.jpeg(), try Self.jpeg("b.jpg")], credentials: Self.vendor)
        let listed = try tool(["list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let images = try await client.products(page: 1).products.flatMap { $0.images.map(\.url) }
        XCTAssertEqual(images.count, 3)

        let signer = try ThumbnailURLSigner(hexKey: keys["MARKET_IMAGES_KEY"]!, hexSalt: keys["MARKET_IMAGES_SALT"]!)
        for info in [false, true] {
            let urls = try CommandLineTool.run(["url", "-", "pr:list", "dpr:3"] + (info ? ["--info"] : []), environment: keys, input: listed.stdout)
            XCTAssertEqual(urls.status, 0, urls.stderr)
            XCTAssertEqual(urls.stdout.split(separator: "\n").map(String.init),
                           images.map { (info ? "/info" : "") + signer.signedPath(options: ["pr:list", "dpr:3"], source: $0) })
        }
    }

    /// `url --config` reads the file `serve` reads: its presets (imgproxy's names), path prefix,
    /// signature size and key, so the URL it prints is the one that service answers; `--preset` adds
    /// one; a preset neither has is still refused before anything is printed.
    func testURLUsesTheServicesOwnPresetsPrefixAndKey() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("url-\(UUID().uuidString).env").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
            MARKET_IMAGES_KEY=\(keys["MARKET_IMAGES_KEY"]!)
            MARKET_IMAGES_SALT=\(keys["MARKET_IMAGES_SALT"]!)
            IMGPROXY_PRESETS=tile=rs:fill:100:100
            IMGPROXY_PATH_PREFIX=/img
            IMGPROXY_SIGNATURE_SIZE=8

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let signed = try CommandLineTool.run(["url", "--config", file, "local:///sku/a.jpg", "pr:tile", "--base", "https://img.example.com"])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let signer = ThumbnailURLSigner(key: Data([0x73, 0x65, 0x63, 0x72, 0x65, 0x74]), salt: Data("hello".utf8), signatureSize: 8)
        XCTAssertEqual(signed.stdout, "https://img.example.com/img" + signer.signedPath(options: ["pr:tile"], source: "local:///sku/a.jpg") + "\n")
        XCTAssertEqual(signed.stdout.split(separator: "/")[3].count, 11, "8 bytes of HMAC in base64url")

        let added = try CommandLineTool.run(["url", "--preset", "card2=rs:fit:300:300", "local:///sku/a.jpg", "pr:card2"])
        XCTAssertEqual([added.status], [0], added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("/insecure/pr:card2/"), added.stdout)
        let unknown = try CommandLineTool.run(["url", "--config", file, "local:///sku/a.jpg", "pr:card2"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown preset \"card2\""), unknown.stderr)
        XCTAssertEqual(unknown.stdout, "")
        // A service of presets only: a URL it would refuse is refused here too.
        try "IMGPROXY_ONLY_PRESETS=true\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try CommandLineTool.run(["url", "--config", file, "local:///sku/a.jpg", "w:100"])
        XCTAssertEqual([refused.status], [2], refused.stdout)
        XCTAssertTrue(refused.stderr.contains("presets only"), refused.stderr)
    }

    /// Lines that cannot be sources are each named with their line and the reason, the rest printed,
    /// exit 1; JSON that is not a product list is refused whole.
    func testALineThatCannotBeASourceIsNamed() throws {
        let input = "not a url\nftp://x.test/y.jpg\nhttps://img.test/a.jpg\n\nlocal:///a/../b.jpg\nhttps://user:pw@img.test/c.jpg\nlocal:///sku/d.jpg\n"
        let result = try CommandLineTool.run(["url", "-", "pr:list"], environment: keys, input: input)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2, result.stdout)
        for line in [1, 2, 5, 6] { XCTAssertTrue(result.stderr.contains("error: line \(line): "), "line \(line): \(result.stderr)") }
        XCTAssertFalse(result.stderr.contains("line 3:") || result.stderr.contains("line 7:"), result.stderr)

        let json = try CommandLineTool.run(["url", "-", "pr:list"], environment: keys, input: #"{"unexpected": true}"#)
        XCTAssertEqual(json.status, 1)
        XCTAssertEqual(json.stdout, "")
        XCTAssertTrue(json.stderr.contains("not what `list --json` or `show --json` prints"), json.stderr)
        XCTAssertEqual(try CommandLineTool.run(["url", "mailto:a@b.test", "pr:list"], environment: keys).status, 2)
    }
}

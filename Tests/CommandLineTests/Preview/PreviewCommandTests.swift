import Foundation
import TestSupport
import XCTest

/// `preview` started as a seller starts it: it prepares what is missing, then prints how many
/// products and failed photos there are and the address to open, which carries this run's token; the
/// address answers with the token only. (What the pages show, in Chromium, is ProductPreviewTests'.)
final class PreviewCommandTests: FolderTestCase {
    func testPreviewPrintsTheAddressWithThisRunsTokenAndASummary() async throws {
        try copy("photos/jolla.jpg", to: "lamp/IMG_1.jpg")
        try copy("hostile/corrupted.jpg", to: "lamp/IMG_2.jpg")
        try copy("photos/DSCN0010.jpg", to: "camera/IMG_1.jpg")
        let preview = try startServiceProcess([input, "--cache", root + "/cache"], command: "preview")
        let token = try XCTUnwrap(preview.token, "the printed address carries a token: \(preview.logText)")
        XCTAssertTrue(preview.logText.contains("Preview of 2 products, 1 photo failed: \(preview.base.absoluteString)/?token=\(token)\n"),
                      preview.logText)
        let client = LoopbackClient(base: preview.base)
        let opened = try await client.get("/?token=" + token)
        XCTAssertEqual(opened.status, 200)
        XCTAssertEqual(opened.header("Set-Cookie"), "market_images_preview=\(token); Path=/; HttpOnly; SameSite=Strict")
        let refused = try await client.get("/")
        XCTAssertEqual(refused.status, 403, "no token, no page")
    }
}

import Foundation
import TestSupport
import XCTest

/// `preview` of a products folder whose publish record holds several servers names them and asks
/// for the flag that picks one, instead of silently showing no publish state. What the record and
/// the pages hold is tested in process (`PublishRecordTests`, `PreviewFolderRuleTests`).
final class PublishRecordServersTests: CommandLineTestCase {
    func testPreviewOfARecordOfSeveralServersAsksWhichOne() throws {
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"])
        let ledger: [String: Any] = ["entries": [
            "http://127.0.0.1:9|lamp": ["state": "registered", "productID": 1, "at": "2026-11-01T00:00:00Z"],
            "https://openmarket.yagom-academy.kr|lamp": ["state": "registered", "productID": 2, "at": "2026-11-01T00:00:00Z"],
        ]]
        try JSONSerialization.data(withJSONObject: ledger).write(to: URL(fileURLWithPath: products + "/.openmarket-published.json"))
        let preview = try startServiceProcess([products, "--cache", root + "/cache"], command: "preview")
        XCTAssertTrue(preview.logText.contains("the publish record has 2 servers (http://localhost:9, https://openmarket.yagom-academy.kr): pass --server"),
                      preview.logText)
    }
}

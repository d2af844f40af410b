import Foundation
import ImagePipeline
import MarketUploader
import ProductPreview
import Publishing
import TestSupport
import XCTest

/// Which server's publish record the preview compares with when none is named, and that server's
/// dialect when none is given.
final class RecordedServerTests: XCTestCase {
    func testTheOnlyRecordedServerIsChosenAndSeveralAreNamedInstead() throws {
        let folder = try temporaryFolder(self)
        XCTAssertNil(RecordedServer(productsFolder: folder).server, "no record, no server")

        var ledger = PublishLedger()
        ledger.entries[PublishLedger.key(server: URL(string: "http://127.0.0.1:9")!, folder: "mug")] = .init(state: .registered, productID: 1, at: Date())
        try ledger.save(to: folder)
        let one = RecordedServer(productsFolder: folder)
        XCTAssertEqual(one.server, URL(string: "http://localhost:9"), "as the record spells it")

        let market = URL(string: "https://openmarket.yagom-academy.kr")!
        ledger.entries[PublishLedger.key(server: market, folder: "mug")] = .init(state: .registered, productID: 2, at: Date())
        try ledger.save(to: folder)
        let several = RecordedServer(productsFolder: folder)
        XCTAssertNil(several.server, "no guess between two")
        XCTAssertEqual(several.recorded, ["http://localhost:9", "https://openmarket.yagom-academy.kr"])

        let photos = PhotoCache(prepareOptions: PrepareOptions(), root: folder + "/cache")
        XCTAssertEqual(PreviewConfiguration(productsFolder: folder, photoCache: photos, server: market).dialect, .openmarket, "known from its host")
        XCTAssertEqual(PreviewConfiguration(productsFolder: folder, photoCache: photos, server: market, dialect: .items).dialect, .items)
        XCTAssertNil(PreviewConfiguration(productsFolder: folder, photoCache: photos, server: URL(string: "http://localhost:9")).dialect)
    }
}

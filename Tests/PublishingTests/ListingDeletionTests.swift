import Foundation
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// `delete` as a library: each dialect's deletion, shown with its secrets redacted before anything
/// is sent; wrong credentials refused without being echoed; a redirect elsewhere never followed; and
/// the publish record forgets listings deleted or already gone.
final class ListingDeletionTests: PublishingTestCase {
    func testDeletionsAreShownRedactedRefusedWithWrongCredentialsAndCarriedOutInEveryDialect() async throws {
        for dialect in Dialect.allCases {
            try await start(dialect)
            let credentials = credentials(for: dialect)
            let mug = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: credentials)
            let before = await server.requestCount
            let shown = try client.requests.deletionPreview(id: mug.id, credentials: credentials).map { $0.rendered(credentials: credentials) }
                .joined(separator: "\n\n")
            XCTAssertTrue(shown.contains("DELETE ") && shown.contains("<redacted>"), shown)
            TestSecrets.assertAbsent(in: shown, "the deletion shown")
            let afterPreview = await server.requestCount
            XCTAssertEqual(afterPreview, before, "showing sends nothing")

            let wrong: Credentials = dialect == .items ? .password(Secret("wrong-secret"))
                : .vendor(identifier: OpenMarketTestServer.identifier, secret: Secret("wrong-secret"))
            let refused = try await ListingDeletion(client: client, credentials: wrong).delete(mug.id)
            let error = try XCTUnwrap(refused.error)
            XCTAssertTrue(error.description.contains("refused the credentials"), error.description)
            XCTAssertFalse(error.description.contains("wrong-secret"), error.description)
            var remaining = await server.products.keys.sorted()
            XCTAssertEqual(remaining, [mug.id])

            let deleted = try await ListingDeletion(client: client, credentials: credentials).delete(mug.id)
            XCTAssertNil(deleted.error, "\(dialect)")
            remaining = await server.products.keys.sorted()
            XCTAssertEqual(remaining, [], "\(dialect)")
        }
    }

    /// A listing already gone from the server is forgotten in the record as a deleted one is: the
    /// record must not say it exists.
    func testAListingAlreadyGoneIsForgottenInThePublishRecord() async throws {
        try await start(.openmarket)
        _ = try productFolder("lamp", photos: ["photos/DSCN0010.jpg"])
        let published = try await publish()
        let id = try XCTUnwrap(published.first?.productID)
        try await client.delete(id: id, credentials: Self.vendor)
        let gone = try await ListingDeletion(client: client, credentials: Self.vendor, productsFolder: products).delete(id)
        guard case .notFound? = gone.error else { return XCTFail("\(String(describing: gone.error))") }
        XCTAssertEqual(gone.forgotten, ["lamp"])
        XCTAssertEqual(try PublishLedger.load(from: products).entries(on: baseURL).count, 0)
    }

    /// A deletion answered with a redirect to another server deletes nothing, there or here.
    func testADeletionRedirectedToAnotherServerChangesNothing() async throws {
        try await start(.openmarket)
        let other = try OpenMarketTestServer(dialect: .openmarket)
        let otherURL = try await other.start()
        addTeardownBlock { await other.stop() }
        let product = try await client.register(Self.draft, images: [try Self.jpeg()], credentials: Self.vendor)
        await server.arm(.redirect(308, location: otherURL.absoluteString + "/api/products/\(product.id)/archived", acting: false))
        let outcome = try await ListingDeletion(client: client, credentials: Self.vendor).delete(product.id)
        guard case .redirected(308, _, _)? = outcome.error else { return XCTFail("\(String(describing: outcome.error))") }
        let otherReceived = await other.requestCount
        XCTAssertEqual(otherReceived, 0, "neither the identifier nor the secret left for the other port")
        let listed = await server.products.count
        XCTAssertEqual(listed, 1)
    }
}

import Foundation
import TestSupport
@testable import MarketUploader
import XCTest

/// Secrets never show up in dry runs or errors unless asked for.
final class SecretTests: UploaderTestCase {
    func testDryRunRedactsSecretsInEveryDialect() throws {
        for dialect in Dialect.allCases {
            let credentials = credentials(for: dialect)
            let builder = RequestBuilder(baseURL: dialect.defaultBaseURL, dialect: dialect)
            let register = try builder.register(Self.draft, images: [try Self.jpeg()], credentials: credentials)
            let edit = try builder.edit(id: 3, ProductChange(stock: 2), credentials: credentials)
            for request in [register, edit] {
                let text = request.rendered(credentials: credentials)
                for secret in credentials.secrets { XCTAssertFalse(text.contains(secret), "\(dialect): \(text)") }
                XCTAssertTrue(text.contains("<redacted>"))
                XCTAssertTrue(text.contains("<\(try Self.fixture("photos/DSCN0010.jpg").count) bytes of image/jpeg>") || request.method == "PATCH")
                let shown = request.rendered(credentials: credentials, showSecrets: true)
                XCTAssertTrue(credentials.secrets.allSatisfy(shown.contains))
            }
        }
    }

    func testSecretValuesPrintRedacted() {
        let secret = Secret("hunter2")
        XCTAssertEqual("\(secret)", "<redacted>")
        XCTAssertEqual(String(reflecting: secret), "<redacted>")
        XCTAssertFalse("\(Credentials.vendor(identifier: "id", secret: secret))".contains("hunter2"))
    }

    func testServerMessagesEchoingASecretAreScrubbed() {
        let error = OpenMarketError.from(status: 400, body: Data(#"{"code":400,"message":"bad secret vendor-secret-Zq7!"}"#.utf8), credentials: Self.vendor)
        XCTAssertFalse(error.description.contains(OpenMarketTestServer.vendorSecret))
    }
}

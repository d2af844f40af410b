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

    /// An echo cut short is redacted from three quarters of the secret on (and 6 characters); less is
    /// left, so a word that a long secret holds (`password` in a form) is not taken for it.
    func testASecretCutShortIsRedactedFromThreeQuartersOfIt() {
        let credentials = Credentials.vendor(identifier: "id", secret: Secret("abcdefghijklm"))
        XCTAssertEqual(credentials.redact("x abcdefghij y"), "x <redacted> y", "10 of 13")
        XCTAssertEqual(credentials.redact("x defghijklm y"), "x <redacted> y", "the last 10")
        XCTAssertEqual(credentials.redact("x abcdefghi y"), "x abcdefghi y", "9 of 13 is under three quarters")
        let short = Credentials.password(Secret("pin42"))
        XCTAssertEqual(short.redact("pin4 and pin42"), "pin4 and <redacted>", "a secret of 6 or fewer only whole")
        let item = Credentials.password(Secret(TestSecrets.password))
        XCTAssertEqual(item.redact("name=\"password\" item-password-8"), "name=\"password\" <redacted>")
    }
}

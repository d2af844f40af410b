import Foundation
import XCTest

/// The credentials the uploader tests use, and the check that none of them ever reaches a user's
/// screen or disk: every CLI run of either test target is scanned (see `CommandLineTool.run`).
public enum TestSecrets {
    public static let identifier = "9f1f9a2c-test-vendor"
    public static let vendorSecret = "vendor-secret-Zq7!"
    public static let password = "item-password-8x"
    /// The identifier is not secret (it is a header the seller can show); these are.
    public static let all = [vendorSecret, password]

    public static func assertAbsent(in text: String, _ context: @autoclosure () -> String,
                                    file: StaticString = #filePath, line: UInt = #line) {
        for secret in all where text.contains(secret) {
            XCTFail("a secret leaked in \(context())", file: file, line: line)
        }
    }
}

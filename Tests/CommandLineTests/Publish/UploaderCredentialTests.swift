import Foundation
import MarketUploader
import TestSupport
import XCTest

/// Credentials as a seller gives them: the environment, a file only its owner can read, or a flag
/// (warned about). Missing ones are a usage error of the command run, a dry run shows placeholders
/// instead, and no secret is printed unless asked for.
final class UploaderCredentialTests: CommandLineTestCase {
    func testCredentialsComeFromTheEnvironmentAFileOrAFlagAndAreNeverShown() async throws {
        _ = try await startServer(.openmarket)
        let folder = try productFolder("mug", photos: ["photos/DSCN0010.jpg"])
        let server = ["--server", baseURL.absoluteString, "--dialect", "openmarket"], cache = ["--cache", root + "/cache"]
        let none = ["OPENMARKET_IDENTIFIER": "", "OPENMARKET_SECRET": ""]
        let placeholders = try CommandLineTool.run(["register", folder, "--dry-run"] + server + cache, environment: none)
        XCTAssertEqual(placeholders.status, 0, placeholders.stderr)
        XCTAssertTrue(placeholders.stdout.contains("identifier: <identifier>"), placeholders.stdout)
        XCTAssertTrue(placeholders.stdout.contains("Content-Length: <redacted>"), "the body holds the secret: \(placeholders.stdout)")
        let missing = try CommandLineTool.run(["register", folder] + server, environment: none)
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("Usage: market-images register "), "the usage of the command run: \(missing.stderr)")
        let deleteUsage = try CommandLineTool.run(["delete", "1", "--yes"] + server, environment: none)
        XCTAssertEqual(deleteUsage.status, 2)
        XCTAssertTrue(deleteUsage.stderr.contains("Usage: market-images delete ") && deleteUsage.stderr.contains("<ids>"), deleteUsage.stderr)
        let sent = await self.server.requestCount
        XCTAssertEqual(sent, 0)

        let flagged = try tool(["register", folder, "--dry-run", "--secret", "typed-in-the-open"])
        XCTAssertTrue(flagged.stderr.contains("--secret on the command line can be read by every user of this machine"), flagged.stderr)
        let shown = try CommandLineTool.run(["register", folder, "--dry-run", "--show-secrets", "--server", baseURL.absoluteString,
                                             "--dialect", "items", "--password", "visible-pw"] + cache)
        XCTAssertTrue(shown.stdout.contains("visible-pw"), shown.stdout)

        // Outside the test's folder, which is checked for secrets at the end.
        let file = NSTemporaryDirectory() + "secret-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (OpenMarketTestServer.vendorSecret + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let fromFile = ["register", folder, "--json", "--identifier", OpenMarketTestServer.identifier, "--secret-file", file] + server + cache
        let open = try CommandLineTool.run(fromFile, environment: none)
        XCTAssertEqual(open.status, 2, open.stderr)
        XCTAssertTrue(open.stderr.contains("can be read by other users (mode 644)") && open.stderr.contains("chmod 600"), open.stderr)
        chmod(file, 0o600)
        let registered = try CommandLineTool.run(fromFile, environment: none)
        XCTAssertEqual(registered.status, 0, registered.stderr)
        XCTAssertFalse(registered.stderr.contains("warning"), registered.stderr)
        XCTAssertEqual(try JSONDecoder().decode(ProductResponse.self, from: Data(registered.stdout.utf8)).name, "Product mug")
        let listed = await self.server.products.count
        XCTAssertEqual(listed, 1, "the secret from the file was the right one")
    }
}

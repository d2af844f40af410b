import Foundation
import MarketUploader
import TestSupport
import ThumbnailService
import XCTest

/// `market-images serve`'s wiring, started as a user starts it: the process's SIGTERM, its exit codes,
/// its help from the table of settings. What the service does is tested in process (ThumbnailServiceTests).
final class ServeCommandTests: FolderTestCase {
    private static let key = "6d61726b65742d696d616765732d74657374"
    private static let salt = "73616c74"
    private let signer = try! ThumbnailURLSigner(hexKey: ServeCommandTests.key, hexSalt: ServeCommandTests.salt)

    private func start(_ arguments: [String] = []) throws -> ServiceProcess {
        try startServiceProcess(["--root", input] + arguments, environment: ["MARKET_IMAGES_KEY": Self.key, "MARKET_IMAGES_SALT": Self.salt],
                                secrets: [Self.key, Self.salt])
    }

    private func path(_ source: String, _ options: [String], format: String? = nil) -> String {
        signer.signedPath(options: options, source: "local:///" + source, format: format)
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
    }

    /// SIGTERM while a request is in flight: it completes, and the service exits 0.
    func testSIGTERMLetsRequestsInFlightFinish() async throws {
        try copy("photos/iphone_13_pro_max.HEIC", to: "sku-1/IMG_2.HEIC")
        let service = try start(["--grace", "20"])
        let request = path("sku-1/IMG_2.HEIC", ["rs:fit:2048:2048", "mb:200000"])
        let slow = Task { try await service.get(request) }
        // SIGTERM once the request is in the service's hands, as its own gauge says.
        let inFlight = await service.waitUntilInFlight(atLeast: 1)
        XCTAssertTrue(inFlight)
        service.terminate()
        let answer = try await slow.value
        XCTAssertEqual(answer.status, 200)
        XCTAssertLessThanOrEqual(answer.body.count, 200_000)
        XCTAssertEqual(service.waitForExit(), 0)
    }

    /// A setup the service must not start with is exit 2 with the reason, as is an unknown flag; the
    /// help lists every setting of the table with its variable.
    func testTheServiceRefusesToStartUnsafelyAndItsHelpListsEverySetting() throws {
        for (arguments, expected) in [([] as [String], "no key"), (["--insecure-unsigned", "--bind", "0.0.0.0:0"], "binds loopback only"),
                                      (["--insecure-unsigned", "--qualty", "70"], "unknown option \"--qualty\"")] {
            let run = try CommandLineTool.run(["serve", "--root", input] + arguments, environment: ["MARKET_IMAGES_KEY": ""], timeLimit: 20)
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains(expected) && run.stderr.contains("Usage: market-images serve"), run.stderr)
        }
        let help = try CommandLineTool.run(["serve", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        for setting in ServiceSetting.all {
            XCTAssertTrue(setting.form == .secret || help.stdout.contains("--\(setting.name) ") || help.stdout.contains("--[no-]\(setting.name)\n"),
                          "--\(setting.name) is not in serve --help")
            XCTAssertTrue(help.stdout.contains(setting.variable), "\(setting.variable) is not in serve --help")
        }
    }
}

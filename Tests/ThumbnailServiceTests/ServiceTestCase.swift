import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MarketUploader
import TestSupport
import XCTest
@testable import ThumbnailService

/// The thumbnail service in process, mounted on a router of its own as `serve` mounts it, spoken
/// to through HummingbirdTesting: no port, no binary. A product photo is under the root as
/// `sku-1/IMG_1.jpg`; URLs are signed with the test key.
class ServiceTestCase: FolderTestCase {
    static let key = "696e2d70726f63657373", salt = "73616c74"
    let signer = try! ThumbnailURLSigner(hexKey: ServiceTestCase.key, hexSalt: ServiceTestCase.salt)

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
    }

    func configuration() -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.root = input
        configuration.keys = [SigningKey(key: Data(hex: Self.key), salt: Data(hex: Self.salt))]
        configuration.metricsBind = nil
        return configuration
    }

    /// The service on a router of its own, and a client for it.
    func withService(_ configuration: ServiceConfiguration, log: LogLines = LogLines(),
                     _ body: @escaping @Sendable (ThumbnailService, any TestClientProtocol) async throws -> Void) async throws {
        let service = try ThumbnailService(configuration, logger: Logger(label: "test") { _ in log })
        let router = Router()
        service.addRoutes(to: router, answersRoot: true)
        try await Application(router: router).test(.router) { client in try await body(service, client) }
    }

    func path(_ options: [String], source: String = "local:///sku-1/IMG_1.jpg", format: String? = nil) -> String {
        signer.signedPath(options: options, source: source, format: format)
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import ImagePipeline
import Logging
import ProductPreview
import Publishing
import TestSupport
import ThumbnailService

extension FolderTestCase {
    /// The preview of `input` on a live loopback server, mounted on a router as `market-images
    /// preview` mounts it; `body` gets a client, this run's token and the log. Errors on the pages
    /// are worded "described: …", as a host words them.
    func withPreview(server: URL? = nil, _ body: @escaping @Sendable (any TestClientProtocol, String, LogLines) async throws -> Void) async throws {
        let lines = LogLines()
        let logger = Logger(label: "preview") { _ in lines }
        var configuration = PreviewConfiguration(productsFolder: input, photoCache: PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache"),
                                                 server: server, dialect: .openmarket)
        configuration.describe = { "described: \($0)" }
        let bind = ServiceAddress(host: "127.0.0.1", port: 0)
        let preview = try ProductPreview(configuration, bind: bind, logger: logger)
        let access = PreviewAccess<BasicRequestContext>(bind: bind, logger: logger)
        let router = Router()
        preview.addRoutes(to: router, access: access)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "server"))
        try await app.test(.live) { client in try await body(client, access.token, lines) }
    }
}

import Foundation
import Hummingbird
import ImagePipeline
import Logging
import ProductPreview
import ServiceLifecycle
import TestSupport
import ThumbnailService
import XCTest

/// The preview in the test's own process, as `market-images preview` runs it: `ProductPreview.run`
/// with the service's real listener and connection handlers on a free loopback port, every route
/// behind `PreviewAccess` with this run's token, stopped as SIGTERM stops it (its group's graceful
/// shutdown). Only the command's wiring is left to CommandLineTests.
final class LivePreview: ServiceConnection, @unchecked Sendable {
    private let group = Locked<ServiceGroup?>(nil)
    private var running: Task<Void, Never>?

    /// Prepares what is missing, as the command does before it listens, starts the preview and
    /// returns once it listens (or has stopped: then `isListening` is false and `logText` says why).
    init(_ configuration: PreviewConfiguration) async throws {
        super.init()
        let bind = ServiceAddress(host: "127.0.0.1", port: 0)
        let logger = Logger(label: "preview") { _ in SwiftLogNoOpLogHandler() }
        let preview = try ProductPreview(configuration, bind: bind, logger: logger)
        _ = preview.prepareAll()
        let access = PreviewAccess<ServiceRequestContext>(bind: bind, logger: logger)
        let router = Router(context: ServiceRequestContext.self)
        preview.addRoutes(to: router, access: access)
        token = access.token
        let (listening, listener) = AsyncStream<String>.makeStream()
        running = Task { [group] in
            do {
                try await preview.run(router: router, signals: [], onStart: { running in group.withLock { $0 = running } }) { listener.yield($0) }
            } catch {
                self.appendLog(Data("error: \(error)\n".utf8))
            }
            listener.finish()
        }
        for await url in listening {
            base = URL(string: url)!
            break
        }
    }

    /// As SIGTERM: stops listening, lets requests in flight finish, and returns once it has stopped.
    func stop() async {
        await group.current?.triggerGracefulShutdown()
        await running?.value
    }
}

extension XCTestCase {
    /// The preview in process (see `LivePreview`), required to be listening, and when the test ends
    /// stopped and audited (`ServiceConnection.audit`).
    func startPreview(_ configuration: PreviewConfiguration, file: StaticString = #filePath, line: UInt = #line) async throws -> LivePreview {
        let preview = try await LivePreview(configuration)
        XCTAssertTrue(preview.isListening, preview.logText, file: file, line: line)
        addTeardownBlock {
            await preview.stop()
            preview.audit(secrets: [], file: file, line: line)
        }
        return preview
    }
}

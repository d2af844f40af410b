import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `--bind HOST:PORT`, checked, for `serve` and `preview`.
struct BindAddress {
    var host: String
    var port: Int

    init(_ text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("--bind takes HOST:PORT, e.g. 127.0.0.1:8080")
        }
        host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
    }

    var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(host) || host.hasPrefix("127.") }

    /// `http://host:port` with the port the listener actually got.
    func url(port bound: Int?) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(bound ?? port)"
    }

    /// Runs `responder` until SIGTERM or SIGINT, then lets requests in flight finish for up to `grace`
    /// seconds. A connection with no complete request for `idleTimeout` seconds is closed: that covers
    /// a client that says nothing and one that sends its request a byte at a time (slowloris), since
    /// partial requests do not count as activity. `onListening` gets the URL once the port is bound.
    func serve(_ responder: some HTTPResponder<BasicRequestContext>, grace: Int, idleTimeout: Int = 30, logger: Logger,
               onListening: @escaping @Sendable (String) -> Void) async throws {
        let application = Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(idleTimeout)))),
            configuration: .init(address: .hostname(host, port: port), serverName: "market-images"),
            onServerRunning: { [self] channel in onListening(url(port: channel.localAddress?.port)) },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(services: [.init(service: application)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(grace)
        try await ServiceGroup(configuration: configuration).run()
    }
}

import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `--bind HOST:PORT` (or `--metrics-bind`), checked, for `serve` and `preview`.
struct BindAddress {
    var host: String
    var port: Int

    init(_ text: String, flag: String = "--bind") throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("\(flag) takes HOST:PORT, e.g. 127.0.0.1:8080; got \(Terminal.display(text))")
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
    /// partial requests do not count as activity. `limit` caps the connections held (see
    /// `ConnectionLimit`). `beside` are more listeners stopped with it (the metrics port).
    /// `onListening` gets the URL once the port is bound.
    func serve(_ responder: some HTTPResponder<BasicRequestContext>, grace: Int, idleTimeout: Int = 30, limit: ConnectionLimit? = nil,
               beside: [any Service] = [], logger: Logger, onListening: @escaping @Sendable (String) -> Void) async throws {
        let application = self.application(responder, idleTimeout: idleTimeout, limit: limit, logger: logger, onListening: onListening)
        var configuration = ServiceGroupConfiguration(services: ([application] + beside).map { .init(service: $0) },
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(grace)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// A listener on this address, not yet running.
    func application(_ responder: some HTTPResponder<BasicRequestContext>, idleTimeout: Int = 30, limit: ConnectionLimit? = nil,
                     logger: Logger, onListening: @escaping @Sendable (String) -> Void) -> some Service {
        let handlers: @Sendable () -> [any RemovableChannelHandler] = { [HTTP10Close()] + (limit.map { [$0.handler()] } ?? []) }
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: handlers(), idleTimeout: .seconds(Int64(idleTimeout)))),
            configuration: .init(address: .hostname(host, port: port), serverName: "market-images"),
            onServerRunning: { [self] channel in onListening(url(port: channel.localAddress?.port)) },
            logger: logger
        )
    }
}

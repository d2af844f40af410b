import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

extension ServiceAddress {
    /// A listener on this address, not yet running. A connection with no complete request for
    /// `idleTimeout` is closed: that covers a client that says nothing, one that sends its request
    /// a byte at a time (slowloris), since partial requests do not count as activity, and one that
    /// trickles a body (`RequestDeadline`). `limit` caps
    /// the connections held (see `ConnectionLimit`); HTTP/1.0 connections close after their answer
    /// (see `HTTP10Close`); `departures` learns when a client goes; `malformed` hears of each request
    /// the HTTP parser refused. `onListening` gets the URL once the port is bound.
    func application<Context: RequestContext>(_ responder: some HTTPResponder<Context>, idleTimeout: Duration, limit: ConnectionLimit? = nil,
                                              departures: ClientDepartures? = nil, malformed: (@Sendable (HTTPParserError) -> Void)? = nil, logger: Logger,
                                              onListening: @escaping @Sendable (String) -> Void) -> some ApplicationProtocol
    where Context.Source == ApplicationRequestContextSource {
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            [HTTP10Close(), RequestDeadline(limit: TimeAmount(idleTimeout))] + (limit.map { [$0.handler()] } ?? [])
                + (departures.map { [$0.handler()] } ?? []) + (malformed.map { [MalformedRequests(refused: $0)] } ?? [])
        }
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: handlers(), idleTimeout: TimeAmount(idleTimeout))),
            configuration: .init(address: .hostname(host, port: port), serverName: "market-images"),
            onServerRunning: { [self] channel in onListening(url(port: channel.localAddress?.port)) },
            logger: logger
        )
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

import Hummingbird
import ImagePipeline
import NIOCore
import NIOHTTPTypes

/// Tells a request that its client has gone. Hummingbird runs a handler to its end whoever is
/// listening, so a render whose client closed the connection (or, behind nginx, whose client nginx
/// saw leave: it closes the upstream connection) went on holding a worker and its memory. A handler in
/// each connection's pipeline notices the close (or the client's end of input, as nginx treats it)
/// and cancels what that connection's requests are waiting for: the render is stopped at its next
/// tile unless another request for the same output still waits (`SingleFlight`), and the access log
/// records 499, nginx's "client closed request".
final class ClientDepartures: Sendable {
    private let connections = Locked<[ObjectIdentifier: Connection]>([:])

    /// One connection's client: whether it has gone, and what to call when it goes.
    final class Connection: Sendable {
        private let state = Locked<(gone: Bool, next: Int, waiting: [Int: @Sendable () -> Void])>((false, 0, [:]))

        /// Registers `call` for when the client goes (at once if it has); nil when it already had.
        fileprivate func onDeparture(_ call: @escaping @Sendable () -> Void) -> Int? {
            let id = state.withLock { state -> Int? in
                guard !state.gone else { return nil }
                state.next += 1
                state.waiting[state.next] = call
                return state.next
            }
            if id == nil { call() }
            return id
        }

        fileprivate func forget(_ id: Int) {
            _ = state.withLock { $0.waiting.removeValue(forKey: id) }
        }

        fileprivate func left() {
            let calls = state.withLock { state in
                defer { state = (true, state.next, [:]) }
                return Array(state.waiting.values)
            }
            calls.forEach { $0() }
        }
    }

    /// A handler for one connection's pipeline.
    func handler() -> Handler { Handler(departures: self) }

    /// `body`'s answer, cancelled if the client of `channel` goes before it ends. Without a channel
    /// (a host's context that does not give it), `body` as it is.
    func whileConnected<T: Sendable>(_ channel: (any Channel)?, _ body: @escaping @Sendable () async -> T) async -> T {
        guard let channel, let connection = connections.withLock({ $0[ObjectIdentifier(channel)] }) else { return await body() }
        let task = Task { await body() }
        let id = connection.onDeparture { task.cancel() }
        defer { id.map(connection.forget) }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        private let departures: ClientDepartures
        private var connection: Connection?

        init(departures: ClientDepartures) {
            self.departures = departures
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let connection = Connection()
            self.connection = connection
            departures.connections.withLock { $0[ObjectIdentifier(context.channel)] = connection }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            leave(context.channel)
        }

        func channelInactive(context: ChannelHandlerContext) {
            leave(context.channel)
            context.fireChannelInactive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { connection?.left() }
            context.fireUserInboundEventTriggered(event)
        }

        private func leave(_ channel: any Channel) {
            connection?.left()
            connection = nil
            _ = departures.connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }
}

/// A request context that gives the connection's channel, so the service can tell when its client
/// has gone (`ClientDepartures`, whose handler only the service's own listeners install).
protocol ConnectionRequestContext: RequestContext {
    var channel: any Channel { get }
}

/// The context the service's listeners give their requests (`ThumbnailService.buildApplication`):
/// a host's router for routes beside the service's uses it too.
public struct ServiceRequestContext: ConnectionRequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

import Foundation
import ImagePipeline
import HTTPTypes
import ImagePipeline
import NIOCore
import NIOHTTPTypes

/// `--max-connections`: the most connections the service holds open. At the cap a new connection
/// does not wait behind the others (as a listener that stops accepting makes it do): the connection
/// idle longest is closed to make room for it, where idle means no request in progress — kept alive
/// after an answer, silent since it connected, or still sending its request head a byte at a time.
/// Only when every connection is in the middle of a request is the new one closed at once. So a
/// thousand half-sent requests cannot keep a real client out, and the descriptors stay well under
/// the process's limit, where accepting would fail with `EMFILE`.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let state = Locked(State())

    private struct State {
        var nextID = 0
        var connections: [Int: Connection] = [:]
        var shed = 0
    }

    private struct Connection {
        let channel: any Channel
        var busy = false
        var idleSince: NIODeadline
    }

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Connections open now, and how many were closed to make room since start (for `/metrics`).
    var counts: (open: Int, shed: Int) { state.withLock { ($0.connections.count, $0.shed) } }

    /// A handler for one connection's pipeline, after HTTP decoding.
    func handler() -> Handler { Handler(limit: self) }

    fileprivate func opened(_ channel: any Channel) -> Int {
        let (id, victim) = state.withLock { state -> (Int, (any Channel)?) in
            let id = state.nextID
            state.nextID += 1
            state.connections[id] = Connection(channel: channel, idleSince: .now())
            guard state.connections.count > maximum else { return (id, nil) }
            state.shed += 1
            let idle = state.connections.filter { !$0.value.busy && $0.key != id }.min { $0.value.idleSince < $1.value.idleSince }
            let victim = idle?.key ?? id
            return (id, state.connections.removeValue(forKey: victim)?.channel)
        }
        victim?.close(promise: nil)
        return id
    }

    fileprivate func closed(_ id: Int) {
        _ = state.withLock { $0.connections.removeValue(forKey: id) }
    }

    fileprivate func mark(_ id: Int, busy: Bool) {
        state.withLock { state in
            state.connections[id]?.busy = busy
            if !busy { state.connections[id]?.idleSince = .now() }
        }
    }

    /// Registers its connection, and marks it busy from a request's head to the end of its answer.
    final class Handler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private let limit: ConnectionLimit
        private var id: Int?

        init(limit: ConnectionLimit) {
            self.limit = limit
        }

        func handlerAdded(context: ChannelHandlerContext) {
            id = limit.opened(context.channel)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            if let id { limit.closed(id) }
            id = nil
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let id { limit.closed(id) }
            id = nil
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data), let id { limit.mark(id, busy: true) }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data), let id { limit.mark(id, busy: false) }
            context.write(data, promise: promise)
        }
    }
}

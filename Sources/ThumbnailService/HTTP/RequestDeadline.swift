import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request has not arrived whole within `limit` of its head. The server's
/// idle timeout counts any bytes as activity once the head is in, so a body announced and then sent
/// a byte at a time (a GET with `Content-Length`, say) held its connection for as long as the client
/// liked; now `--idle-timeout` bounds the whole request, head to end, as it bounds a silent one.
final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let limit: TimeAmount
    private var pending: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            pending?.cancel()
            let channel = context.channel
            pending = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
        case .end:
            pending?.cancel()
            pending = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
        context.fireChannelInactive()
    }
}

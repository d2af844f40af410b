import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Closes an HTTP/1.0 connection after its answer unless the client asked to keep it alive, as
/// HTTP/1.0 means. The conversion to HTTP types drops the version, so without this such a client
/// held its connection (and a slot under `--max-connections`) until `--idle-timeout`. Added after
/// HTTP decoding with the other connection handlers, it puts its worker in front of the conversion,
/// where the version is still known, and passes everything on itself.
final class HTTP10Close: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
        try? pipeline.addHandler(MarkClose(), position: .before(codec))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    /// Adds `Connection: close` to a request head that is not keep-alive, which the server honours.
    private final class MarkClose: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive, head.version.major == 1, head.version.minor == 0 else {
                return context.fireChannelRead(data)
            }
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        }
    }
}

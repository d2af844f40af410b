import NIOCore
import NIOHTTP1

/// Sees requests the HTTP parser refused (a bad request line, a header past the limits, smuggling
/// attempts): Hummingbird answers them 400 and closes before any route or middleware runs, so
/// without this they were answered and never logged or counted. One call to `refused` each.
final class MalformedRequests: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let refused: @Sendable (HTTPParserError) -> Void

    init(refused: @escaping @Sendable (HTTPParserError) -> Void) {
        self.refused = refused
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError { refused(error) }
        context.fireErrorCaught(error)
    }
}

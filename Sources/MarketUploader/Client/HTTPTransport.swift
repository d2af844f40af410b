import Foundation

/// The one seam between the uploader and the network. `URLSessionTransport` is the real one; an app
/// can supply its own (background sessions, a proxy, a recorder).
public protocol HTTPTransport: Sendable {
    func send(_ request: OpenMarketRequest, timeout: TimeInterval) async throws(TransportError) -> HTTPResponse
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// A request that got no HTTP answer.
public struct TransportError: Error, Sendable, Equatable {
    public var message: String
    /// False only when the server certainly never received the request: the only case where a
    /// non-idempotent request may be sent again.
    public var requestReachedServer: Bool
    public var timedOut: Bool

    public init(message: String, requestReachedServer: Bool, timedOut: Bool = false) {
        self.message = message
        self.requestReachedServer = requestReachedServer
        self.timedOut = timedOut
    }
}

import Foundation

/// The one seam between the uploader and the network. `URLSessionTransport` is the real one; an app
/// can supply its own (background sessions, a proxy, a recorder).
///
/// A transport sends the request once and returns the first answer as it is: it never follows a
/// redirect (the client decides, since credentials must not leave the configured server), reads no
/// more than `limits.maxBodyBytes` of a body, and ends when its task is cancelled (the client
/// cancels it at `limits.timeout`, the deadline of the whole exchange).
public protocol HTTPTransport: Sendable {
    func send(_ request: OpenMarketRequest, limits: ExchangeLimits) async throws(TransportError) -> HTTPResponse
}

/// What one exchange may take: `timeout` seconds from sending to the last byte of the answer, and
/// an answer body of at most `maxBodyBytes`.
public struct ExchangeLimits: Sendable, Equatable {
    public var timeout: TimeInterval
    public var maxBodyBytes: Int

    public init(timeout: TimeInterval, maxBodyBytes: Int) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case; a repeated header keeps its last value.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }
}

/// A request that got no usable HTTP answer.
public struct TransportError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// No connection was ever opened: the server certainly did not get the request. The only
        /// case where a request that changes the server may be sent again.
        case notSent
        /// The connection failed once bytes of the request could have left.
        case failed
        /// The exchange passed its deadline.
        case timedOut
        /// The answer's body passed `ExchangeLimits.maxBodyBytes`; it was cut there.
        case answerTooLarge
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var requestReachedServer: Bool { kind != .notSent }
}

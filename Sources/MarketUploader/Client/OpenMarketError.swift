import Foundation

/// Everything that can go wrong talking to an OpenMarket server, with the server's own words where
/// it gave any. `description` says what happened, in terms any app can show; remedies in terms of a
/// tool's flags belong to that tool. Messages never contain a secret.
public enum OpenMarketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Rules broken before sending; nothing was sent.
    case invalid([String])
    /// Something this dialect's server cannot do; nothing was sent.
    case unsupported(String)
    /// 401/403: wrong password, secret or identifier.
    case unauthorized(status: Int, message: String)
    case notFound(message: String)
    /// 413: the server or a proxy in front of it refused the body size.
    case payloadTooLarge(message: String)
    /// Any other 4xx: the request was understood and refused.
    case rejected(status: Int, message: String)
    case serverError(status: Int, message: String)
    /// No usable answer. `requestReachedServer` is false only when the server certainly did not get
    /// the request (connection refused, host not found): only then is resending a register safe.
    case transport(message: String, requestReachedServer: Bool)
    /// No complete answer within the exchange's deadline.
    case timedOut(seconds: Double)
    /// The answer passed the client's `maxAnswerBytes` and was cut.
    case answerTooLarge(limit: Int)
    /// A 3xx that the client does not follow: any redirect of a request that changes the server or
    /// carries credentials, and a read's redirect to another scheme, host or port.
    case redirected(status: Int, from: String, to: String)
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .transport(_, true), .timedOut, .answerTooLarge, .redirected: summary + "; the server may have acted on the request"
        default: summary
        }
    }

    /// What happened, without the reminder that the server may have acted on it: for a caller that
    /// says what that means for its own request (`PublishingError.mayHaveBeenListed`).
    public var summary: String {
        switch self {
        case .invalid(let problems):
            "nothing was sent; fix these first:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .unsupported(let message): message
        case .unauthorized(let status, let message): "the server refused the credentials (\(status)): \(message)"
        case .notFound(let message): "not found (404): \(message)"
        case .payloadTooLarge(let message): "the server refused the size of the request (413): \(message)"
        case .rejected(let status, let message): "the server rejected the request (\(status)): \(message)"
        case .serverError(let status, let message): "the server failed (\(status)): \(message)"
        case .transport(let message, let reached):
            reached ? "the connection failed after the request was sent (\(message))" : "could not reach the server (\(message)); nothing was sent"
        case .timedOut(let seconds): "no complete answer within \(NumberText.format(seconds)) s"
        case .answerTooLarge(let limit): "the server's answer passed \(NumberText.grouped(Int64(limit))) bytes and was cut"
        case .redirected(let status, let from, let to):
            "the server answered \(from) with a redirect (\(status)) to \(to), which is not followed: requests and credentials go only to the configured server"
        case .invalidResponse(let detail): "the server's answer could not be understood: \(detail)"
        }
    }

    /// The error for a non-2xx answer, with the message in whichever shape the dialect uses:
    /// `{"error":true,"reason":"…"}` (G1), `{"code":400,"message":"…"}` (G2/G3), or plain text.
    static func from(status: Int, body: Data, credentials: Credentials?) -> OpenMarketError {
        var message = String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            message = (object["reason"] as? String) ?? (object["message"] as? String) ?? message
        }
        if message.isEmpty { message = "HTTP \(status) with no message" }
        // A message is shown up to 2,000 characters, redacted with what follows the cut (a secret
        // across it is still found), then cut: a server's megabyte of text costs no more.
        let long = message.count > 2000
        if long { message = String(message.prefix(2200)) }
        message = credentials?.redact(message) ?? message
        if long { message = String(message.prefix(2000)) + "…" }
        message = ServerText.printable(message)
        switch status {
        case 401, 403: return .unauthorized(status: status, message: message)
        case 404: return .notFound(message: message)
        case 413: return .payloadTooLarge(message: message)
        case 400..<500: return .rejected(status: status, message: message)
        default: return .serverError(status: status, message: message)
        }
    }

    /// Whether the server may have carried the request out despite the error (a register may have
    /// listed the product): only an answer that refused it, or a failure before it was sent, proves
    /// it did not. A client must then look before sending it again.
    public var mayHaveBeenActedOn: Bool {
        switch self {
        case .invalid, .unsupported, .unauthorized, .notFound, .payloadTooLarge, .rejected: false
        case .transport(_, let reached): reached
        case .serverError, .timedOut, .answerTooLarge, .redirected, .invalidResponse: true
        }
    }
}

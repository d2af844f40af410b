import Foundation
import Hummingbird
import Logging
import ThumbnailService

/// Who may read the preview. Listening on loopback is not enough: a web page whose name an attacker
/// then resolves to 127.0.0.1 (DNS rebinding) reaches the port from the seller's own browser, and so
/// can any other user of the machine. So a request must name a loopback host in `Host` (a rebound
/// page names its own) and carry this run's token: in the address the command printed, which the
/// browser then keeps as a strict, script-hidden cookie for the page's images and styles.
///
/// A middleware in front of every route (the pages and the thumbnail service's); a refusal gets its
/// access-log line here, since no route sees it.
public struct PreviewAccess<Context: RequestContext>: RouterMiddleware {
    static var cookie: String { "market_images_preview" }

    public let token: String
    private let hosts: Set<String>
    let logger: Logger

    public init(bind: ServiceAddress, token: String = PreviewAccessToken.make(), logger: Logger) {
        self.token = token
        self.logger = logger
        hosts = ["localhost", "127.0.0.1", "::1", bind.host.lowercased()]
    }

    /// The address to open: the listener's URL with the token.
    public func address(_ url: String) -> String { url + "/?token=" + token }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        switch check(request) {
        case .refused(let refusal):
            logger.info("\(AccessLogLine.text(request, refusal, since: started))")
            return refusal
        case .allowed(let remember):
            var response = try await next(request, context)
            if remember { response.headers[.setCookie] = setCookie }
            return response
        }
    }

    enum Decision {
        /// Allowed; `remember` when the token came in the query and the answer should set the cookie.
        case allowed(remember: Bool)
        case refused(Response)
    }

    func check(_ request: Request) -> Decision {
        guard let authority = request.head.authority, hosts.contains(Self.host(of: authority)) else {
            return .refused(ServiceFailure(status: .forbidden, error: "foreign-host",
                                           detail: "the preview answers only its own loopback address").response)
        }
        let cookies = request.headers[values: .cookie].flatMap { $0.split(separator: ";") }
        if cookies.contains(where: { Self.matches($0.trimmingCharacters(in: .whitespaces), Self.cookie + "=" + token) }) {
            return .allowed(remember: false)
        }
        if let given = request.uri.queryParameters.get("token"), Self.matches(given, token) {
            return .allowed(remember: true)
        }
        return .refused(ServiceFailure(status: .forbidden, error: "no-token",
                                       detail: "open the address market-images preview printed: it carries this run's token").response)
    }

    /// The cookie that keeps the token for the rest of the visit.
    var setCookie: String { "\(Self.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// `host` of `host:port`, `[v6]:port` or a bare host, lower-cased.
    static func host(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").lowercased()
    }

    /// Compares in time that does not depend on where the strings first differ.
    private static func matches(_ given: String, _ expected: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(expected.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A preview run's secret: 256 random bits, in hex.
public enum PreviewAccessToken {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}

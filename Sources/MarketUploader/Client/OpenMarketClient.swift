import Foundation

/// Registers, edits, reads and deletes products on one OpenMarket server.
///
/// Retries are limited to what cannot duplicate anything: a GET, or any request the transport
/// proves never reached the server. A register whose connection dropped mid-body is reported, not
/// resent — resending could list the product twice.
///
/// Credentials never leave the configured server: a redirect is followed only by a read (a GET,
/// which carries none) to the same scheme, host and port; any other redirect is an error naming
/// where it pointed. Each exchange ends by `timeout` and reads at most `maxAnswerBytes`, so a
/// trickling or endless answer is cut, not waited for.
public struct OpenMarketClient: Sendable {
    public let requests: RequestBuilder
    public let transport: any HTTPTransport
    /// Seconds for a whole exchange: sending the request and reading all of the answer.
    public var timeout: TimeInterval = 30
    /// The largest answer read. A page of 100 products is a few hundred kilobytes.
    public var maxAnswerBytes = 4 << 20
    /// Extra attempts for a safe request, with a doubling pause starting at `retryDelay`.
    public var retries = 2
    public var retryDelay: TimeInterval = 0.5
    /// How long the servers may answer 404 for a listing just registered or edited, by any client
    /// (about a second, measured): a 404 is read again after this pause before it counts as deleted.
    public var settleDelay: TimeInterval = 2
    /// Same-server redirects a read follows before giving up.
    static let maxRedirects = 5

    public init(baseURL: URL, dialect: Dialect, transport: any HTTPTransport = URLSessionTransport()) {
        requests = RequestBuilder(baseURL: baseURL, dialect: dialect)
        self.transport = transport
    }

    public func register(_ draft: ProductDraft, images: [UploadImage], credentials: Credentials) async throws(OpenMarketError) -> ProductResponse {
        let request = try requests.register(draft, images: images, credentials: credentials)
        return try product(in: try await send(request, idempotent: false, credentials: credentials).body, credentials: credentials)
    }

    public func edit(id: Int, _ change: ProductChange, images: [UploadImage] = [], credentials: Credentials) async throws(OpenMarketError) -> ProductResponse {
        let request = try requests.edit(id: id, change, images: images, credentials: credentials)
        // Setting the same fields twice has the same effect, but G1's multipart PATCH replaces images:
        // resend only when the request certainly never arrived.
        return try product(in: try await send(request, idempotent: false, credentials: credentials).body, credentials: credentials)
    }

    public func product(id: Int) async throws(OpenMarketError) -> ProductResponse {
        try decode(try await send(requests.product(id: id), idempotent: true, credentials: nil).body)
    }

    /// The bytes of one of a product's images (`ProductResponse.Image.url`), to tell by their
    /// fingerprint whether a listing holds a folder's photos. Sent without credentials: image hosts
    /// are often another server's.
    public func image(at url: URL) async throws(OpenMarketError) -> Data {
        try await send(OpenMarketRequest(method: "GET", url: url, headers: [], body: .none), idempotent: true, credentials: nil).body
    }

    /// A page of the product list, with how far the server's clock is from ours (its `Date` header).
    public func products(page: Int, itemsPerPage: Int = 20, search: String? = nil) async throws(OpenMarketError) -> ProductPage {
        let response = try await send(requests.products(page: page, itemsPerPage: itemsPerPage, search: search), idempotent: true, credentials: nil)
        var page: ProductPage = try decode(response.body)
        page.serverClockOffset = response.headers["date"].flatMap(HTTPDate.parse).map { $0.timeIntervalSinceNow }
        return page
    }

    /// Listings that may be named `name`, newest pages first: G3 searches by name; G1 and G2 cannot,
    /// so up to `pages` pages are read. Filter them with a `ListingMatcher`. The answer is one page
    /// holding them all.
    public func listings(named name: String, pages: Int = 10, itemsPerPage: Int = 100) async throws(OpenMarketError) -> ProductPage {
        var found = try await products(page: 1, itemsPerPage: itemsPerPage, search: name)
        var last = found
        for page in 1..<max(1, pages) {
            // G1 pages say nothing about a next one: an empty page ends the list.
            guard requests.dialect == .items ? !last.products.isEmpty : last.hasNext else { break }
            last = try await products(page: page + 1, itemsPerPage: itemsPerPage, search: name)
            found.products += last.products
        }
        found.hasNext = false
        return found
    }

    public func delete(id: Int, credentials: Credentials) async throws(OpenMarketError) {
        if requests.dialect == .items {
            _ = try await send(try requests.deletion(id: id, credentials: credentials), idempotent: false, credentials: credentials)
            return
        }
        let answer = try await send(try requests.deletionLookup(id: id, credentials: credentials), idempotent: false, credentials: credentials)
        let deletion = try requests.deletion(id: id, lookupAnswer: String(decoding: answer.body, as: UTF8.self), credentials: credentials)
        _ = try await send(deletion, idempotent: false, credentials: credentials)
    }

    /// Sends, retrying only what is safe, and turns non-2xx answers into typed errors.
    func send(_ request: OpenMarketRequest, idempotent: Bool, credentials: Credentials?) async throws(OpenMarketError) -> HTTPResponse {
        var attempt = 0
        while true {
            let retryable: Bool
            let failure: OpenMarketError
            do {
                let response = try await exchange(request, followsRedirects: idempotent && credentials == nil)
                if (200..<300).contains(response.status) { return response }
                if (300..<400).contains(response.status) {
                    throw OpenMarketError.redirected(status: response.status, from: request.url.absoluteString,
                                                     to: ServerText.printable(response.headers["location"] ?? "nowhere"))
                }
                failure = OpenMarketError.from(status: response.status, body: response.body, credentials: credentials)
                retryable = idempotent && response.status >= 500
            } catch let error as TransportError {
                let message = ServerText.printable(credentials?.redact(error.message) ?? error.message)
                // The deadline is the caller's whole budget, and an endless answer stays endless:
                // neither is tried again.
                switch error.kind {
                case .timedOut: (failure, retryable) = (.timedOut(seconds: timeout), false)
                case .answerTooLarge: (failure, retryable) = (.answerTooLarge(limit: maxAnswerBytes), false)
                case .notSent, .failed:
                    failure = .transport(message: message, requestReachedServer: error.requestReachedServer)
                    retryable = idempotent || !error.requestReachedServer
                }
            } catch let error as OpenMarketError {
                throw error
            } catch {
                throw .invalidResponse("\(error)")
            }
            guard retryable, attempt < retries else { throw failure }
            attempt += 1
            try? await Task.sleep(nanoseconds: UInt64(retryDelay * pow(2, Double(attempt - 1)) * 1e9))
        }
    }

    /// One exchange within the deadline, a read's same-server redirects included; any other redirect
    /// is returned for `send` to refuse.
    private func exchange(_ request: OpenMarketRequest, followsRedirects: Bool) async throws -> HTTPResponse {
        let limits = ExchangeLimits(timeout: timeout, maxBodyBytes: maxAnswerBytes)
        let transport = self.transport
        return try await withinDeadline {
            var request = request
            for _ in 0...Self.maxRedirects {
                let response = try await transport.send(request, limits: limits)
                // A transport of an app's own may read more than it was allowed.
                guard response.body.count <= limits.maxBodyBytes else {
                    throw TransportError(.answerTooLarge, message: "the answer passed \(limits.maxBodyBytes) bytes")
                }
                guard followsRedirects, (300..<400).contains(response.status), let location = response.headers["location"],
                      let next = URL(string: location, relativeTo: request.url)?.absoluteURL, Self.sameOrigin(next, request.url) else { return response }
                request.url = next
            }
            throw OpenMarketError.invalidResponse("more than \(Self.maxRedirects) redirects")
        }
    }

    /// What `work` returns, or `.timedOut` at the deadline whatever it is doing (it is cancelled).
    private func withinDeadline(_ work: @escaping @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let seconds = timeout
        let result = await withTaskGroup(of: Result<HTTPResponse, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let result else { throw TransportError(.timedOut, message: "no complete answer within \(NumberText.format(seconds)) s") }
        return try result.get()
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }

    private func decode<T: Decodable>(_ body: Data, credentials: Credentials? = nil) throws(OpenMarketError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: ServerText.markingInvalidText(body))
        } catch {
            let snippet = String(decoding: body.prefix(120), as: UTF8.self)
            throw .invalidResponse("expected JSON, got \"\(ServerText.printable(credentials?.redact(snippet) ?? snippet))\"")
        }
    }

    /// The product a register or edit answered, which must name a product: ids are positive.
    private func product(in body: Data, credentials: Credentials) throws(OpenMarketError) -> ProductResponse {
        let product: ProductResponse = try decode(body, credentials: credentials)
        guard product.id > 0 else { throw .invalidResponse("the server answered product id \(product.id); ids are positive") }
        return product
    }
}

import Foundation

/// Registers, edits, reads and deletes products on one OpenMarket server.
///
/// Retries are limited to what cannot duplicate anything: a GET, or any request the transport
/// proves never reached the server. A register whose connection dropped mid-body is reported, not
/// resent — resending could list the product twice.
public struct OpenMarketClient: Sendable {
    public let requests: RequestBuilder
    public let transport: any HTTPTransport
    public var timeout: TimeInterval = 30
    /// Extra attempts for a safe request, with a doubling pause starting at `retryDelay`.
    public var retries = 2
    public var retryDelay: TimeInterval = 0.5

    public init(baseURL: URL, dialect: Dialect, transport: any HTTPTransport = URLSessionTransport()) {
        requests = RequestBuilder(baseURL: baseURL, dialect: dialect)
        self.transport = transport
    }

    public func register(_ draft: ProductDraft, images: [UploadImage], credentials: Credentials) async throws(OpenMarketError) -> ProductResponse {
        let request = try requests.register(draft, images: images, credentials: credentials)
        return try decode(try await send(request, idempotent: false, credentials: credentials))
    }

    public func edit(id: Int, _ change: ProductChange, images: [UploadImage] = [], credentials: Credentials) async throws(OpenMarketError) -> ProductResponse {
        let request = try requests.edit(id: id, change, images: images, credentials: credentials)
        // Setting the same fields twice has the same effect, but G1's multipart PATCH replaces images:
        // resend only when the request certainly never arrived.
        return try decode(try await send(request, idempotent: false, credentials: credentials))
    }

    public func product(id: Int) async throws(OpenMarketError) -> ProductResponse {
        try decode(try await send(requests.product(id: id), idempotent: true, credentials: nil))
    }

    public func products(page: Int, itemsPerPage: Int = 20, search: String? = nil) async throws(OpenMarketError) -> ProductPage {
        try decode(try await send(requests.products(page: page, itemsPerPage: itemsPerPage, search: search), idempotent: true, credentials: nil))
    }

    /// Listings that may be named `name`, newest pages first: G3 searches by name; G1 and G2 cannot,
    /// so up to `pages` pages are read. Filter them with a `ListingMatcher`.
    public func listings(named name: String, pages: Int = 10, itemsPerPage: Int = 100) async throws(OpenMarketError) -> [ProductResponse] {
        var found: [ProductResponse] = []
        for page in 1...max(1, pages) {
            let result = try await products(page: page, itemsPerPage: itemsPerPage, search: name)
            found += result.products
            // G1 pages say nothing about a next one: an empty page ends the list.
            let more = requests.dialect == .items ? !result.products.isEmpty : result.hasNext
            if !more { break }
        }
        return found
    }

    public func delete(id: Int, credentials: Credentials) async throws(OpenMarketError) {
        if requests.dialect == .items {
            _ = try await send(try requests.deletion(id: id, credentials: credentials), idempotent: false, credentials: credentials)
            return
        }
        let answer = try await send(try requests.deletionLookup(id: id, credentials: credentials), idempotent: false, credentials: credentials)
        let deletion = try requests.deletion(id: id, lookupAnswer: String(decoding: answer, as: UTF8.self), credentials: credentials)
        _ = try await send(deletion, idempotent: false, credentials: credentials)
    }

    /// Sends, retrying only what is safe, and turns non-2xx answers into typed errors.
    func send(_ request: OpenMarketRequest, idempotent: Bool, credentials: Credentials?) async throws(OpenMarketError) -> Data {
        var attempt = 0
        while true {
            let retryable: Bool
            let failure: OpenMarketError
            do {
                let response = try await transport.send(request, timeout: timeout)
                if (200..<300).contains(response.status) { return response.body }
                failure = OpenMarketError.from(status: response.status, body: response.body, credentials: credentials)
                retryable = idempotent && response.status >= 500
            } catch {
                let message = credentials?.redact(error.message) ?? error.message
                failure = error.timedOut ? .timedOut(seconds: timeout) : .transport(message: message, requestReachedServer: error.requestReachedServer)
                retryable = idempotent || !error.requestReachedServer
            }
            guard retryable, attempt < retries else { throw failure }
            attempt += 1
            try? await Task.sleep(nanoseconds: UInt64(retryDelay * pow(2, Double(attempt - 1)) * 1e9))
        }
    }

    private func decode<T: Decodable>(_ body: Data) throws(OpenMarketError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw .invalidResponse("expected JSON, got \"\(String(decoding: body.prefix(120), as: UTF8.self))\"")
        }
    }
}

import FlyingFox
import Foundation

/// An image host on loopback, as the OpenMarket server's image host is to the thumbnail service:
/// serves images by path with an `ETag` and `Last-Modified`, answers conditional GETs with 304, can
/// be made to fail, and records every request it got (the far side, so tests can count what the
/// service asked for).
public final class ImageOrigin: @unchecked Sendable {
    public struct Seen: Sendable {
        public var path: String
        public var ifNoneMatch: String?
        public var ifModifiedSince: String?
        /// The status answered: 200 carried the image, 304 did not.
        public var status: Int
    }

    public enum Mode: Sendable { case serving, failing(status: Int), gone }

    private let server: HTTPServer
    private let lock = NSLock()
    private var images: [String: (data: Data, etag: String, modified: String)] = [:]
    private var mode = Mode.serving
    private var seen: [Seen] = []
    private var task: Task<Void, Error>?
    public private(set) var base: URL!

    public init() throws {
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
    }

    public func start() async throws {
        await server.appendRoute("*") { [weak self] request in
            guard let self else { return HTTPResponse(statusCode: .internalServerError) }
            return self.answer(request)
        }
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 10)
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    public func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    /// Puts (or replaces) an image at `path`, with a new validator.
    public func host(_ data: Data, at path: String) {
        lock.withLock {
            let version = (images[path].map { Int($0.etag.dropFirst(2).dropLast()) ?? 0 } ?? 0) + 1
            images[path] = (data, "\"v\(version)\"", "Tue, 24 Nov 2026 0\(version % 10):00:00 GMT")
        }
    }

    public func set(_ mode: Mode) { lock.withLock { self.mode = mode } }

    /// Requests so far, in order.
    public var requests: [Seen] { lock.withLock { seen } }

    /// Requests that carried an image body (downloads, not 304s).
    public var downloads: Int { requests.filter { $0.status == 200 }.count }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock {
            let ifNoneMatch = request.headers[.ifNoneMatch], ifModifiedSince = request.headers[.ifModifiedSince]
            let response: HTTPResponse
            switch (mode, images[request.path]) {
            case (.failing(let status), _):
                response = HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Failing"))
            case (.gone, _), (.serving, nil):
                response = HTTPResponse(statusCode: .notFound)
            case (.serving, let image?):
                let headers: HTTPHeaders = [.eTag: image.etag, .lastModified: image.modified, .contentType: "image/jpeg"]
                response = ifNoneMatch == image.etag
                    ? HTTPResponse(statusCode: .notModified, headers: headers)
                    : HTTPResponse(statusCode: .ok, headers: headers, body: image.data)
            }
            seen.append(Seen(path: request.path, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, status: response.statusCode.code))
            return response
        }
    }
}

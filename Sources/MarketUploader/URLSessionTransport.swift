import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with `URLSession` (FoundationNetworking on Linux). Multipart bodies are written to
/// a temporary file and uploaded from it, so images are read from disk in chunks, not held twice.
public struct URLSessionTransport: HTTPTransport {
    public init() {}

    public func send(_ request: OpenMarketRequest, timeout: TimeInterval) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = timeout
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let contentType = request.contentType { urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        var bodyFile: URL?
        defer { if let bodyFile { try? FileManager.default.removeItem(at: bodyFile) } }
        do {
            switch request.body {
            case .none:
                break
            case .json(let data):
                urlRequest.httpBody = data
            case .multipart(let form):
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("market-images-body-\(UUID().uuidString)")
                try form.write(to: file)
                bodyFile = file
                urlRequest.setValue(String(try form.contentLength), forHTTPHeaderField: "Content-Length")
            }
        } catch {
            throw TransportError(message: "cannot build the request body: \(error)", requestReachedServer: false)
        }

        let request = urlRequest
        let result: Result<HTTPResponse, TransportError> = await withCheckedContinuation { continuation in
            let completion: @Sendable (Data?, URLResponse?, Error?) -> Void = { data, response, error in
                if let error {
                    continuation.resume(returning: .failure(Self.classify(error)))
                } else if let http = response as? HTTPURLResponse {
                    continuation.resume(returning: .success(HTTPResponse(status: http.statusCode, body: data ?? Data())))
                } else {
                    continuation.resume(returning: .failure(TransportError(message: "not an HTTP answer", requestReachedServer: true)))
                }
            }
            let task = bodyFile.map { session.uploadTask(with: request, fromFile: $0, completionHandler: completion) }
                ?? session.dataTask(with: request, completionHandler: completion)
            task.resume()
        }
        return try result.get()
    }

    /// Only failures before a connection existed prove the server never saw the request.
    static func classify(_ error: Error) -> TransportError {
        let code = (error as? URLError)?.code
        let neverSent: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .unsupportedURL, .badURL]
        return TransportError(message: (error as NSError).localizedDescription,
                              requestReachedServer: !(code.map(neverSent.contains) ?? false),
                              timedOut: code == .timedOut)
    }
}

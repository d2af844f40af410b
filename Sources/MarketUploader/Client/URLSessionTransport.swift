import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with `URLSession` (FoundationNetworking on Linux). Multipart bodies are uploaded
/// from memory (at most five 300 KB images): FoundationNetworking's upload-from-file path crashes
/// the process (a `try!` on curl error 43) when the server resets the connection mid-body, which
/// `ValidationAndErrorTests.testResetMidBodyIsNeverResentButAGetIs` reproduces.
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

        var upload: Data?
        switch request.body {
        case .none:
            break
        case .json(let data):
            urlRequest.httpBody = data
        case .multipart(let form):
            let body = form.encoded()
            upload = body
            urlRequest.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
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
            let task = upload.map { session.uploadTask(with: request, from: $0, completionHandler: completion) }
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

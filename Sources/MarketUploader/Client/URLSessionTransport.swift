import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with `URLSession` (FoundationNetworking on Linux). Multipart bodies are uploaded
/// from memory (at most five 300 KB images): FoundationNetworking's upload-from-file path crashes
/// the process (a `try!` on curl error 43) when the server resets the connection mid-body, which
/// `ValidationAndErrorTests.testResetMidBodyIsNeverResentButAGetIs` reproduces.
///
/// Redirects are answered, not followed, and the body is read through a delegate that stops at the
/// limit: a completion handler would make URLSession follow every redirect and buffer an endless
/// body whole.
public struct URLSessionTransport: HTTPTransport {
    public init() {}

    public func send(_ request: OpenMarketRequest, limits: ExchangeLimits) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = limits.timeout
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let contentType = request.contentType { urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.timeout
        configuration.timeoutIntervalForResource = limits.timeout
        let exchange = Exchange(maxBodyBytes: limits.maxBodyBytes)
        let session = URLSession(configuration: configuration, delegate: exchange, delegateQueue: Self.delegateQueue())
        defer { session.invalidateAndCancel() }

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
        let task = upload.map { session.uploadTask(with: urlRequest, from: $0) } ?? session.dataTask(with: urlRequest)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(task, continuation)
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    #if canImport(FoundationNetworking)
    /// FoundationNetworking posts every chunk of an answer to the delegate queue as it reads it, with no
    /// backpressure: a queue that falls behind a fast sender holds the answer in memory, gigabytes of
    /// it, and the cancel that would stop it waits behind them. Run on this queue, each delegate call
    /// happens where the chunk was read, before the next is read.
    private final class InlineQueue: OperationQueue, @unchecked Sendable {
        override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }
    }

    private static func delegateQueue() -> OperationQueue? { InlineQueue() }
    #else
    private static func delegateQueue() -> OperationQueue? { nil }
    #endif

    /// Only failures before a connection existed prove the server never saw the request.
    static func classify(_ error: Error) -> TransportError {
        let code = (error as? URLError)?.code
        let neverSent: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .unsupportedURL, .badURL]
        let kind: TransportError.Kind = code == .timedOut ? .timedOut : code.map(neverSent.contains) == true ? .notSent : .failed
        return TransportError(kind, message: (error as NSError).localizedDescription)
    }

    /// One task's answer, gathered by URLSession's delegate calls.
    private final class Exchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let maxBodyBytes: Int
        private let lock = NSLock()
        private var body = Data()
        private var tooLarge = false
        private var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?

        init(maxBodyBytes: Int) {
            self.maxBodyBytes = maxBodyBytes
        }

        func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) {
            lock.withLock { self.continuation = continuation }
            task.resume()
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }

        /// Keeps at most the limit; what arrives before the cancel takes effect is dropped.
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let over = lock.withLock {
                guard !tooLarge else { return false }
                body.append(data.prefix(maxBodyBytes + 1 - body.count))
                tooLarge = body.count > maxBodyBytes
                return tooLarge
            }
            // Not from here: a cancel waits for the queue this call may be running on.
            if over { DispatchQueue.global().async { dataTask.cancel() } }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.withLock {
                continuation?.resume(returning: result(task, error))
                continuation = nil
            }
        }

        private func result(_ task: URLSessionTask, _ error: Error?) -> Result<HTTPResponse, TransportError> {
            if tooLarge { return .failure(TransportError(.answerTooLarge, message: "the answer passed \(maxBodyBytes) bytes")) }
            if let error { return .failure(URLSessionTransport.classify(error)) }
            guard let http = task.response as? HTTPURLResponse else { return .failure(TransportError(.failed, message: "not an HTTP answer")) }
            var headers: [String: String] = [:]
            for case let (name as String, value as String) in http.allHeaderFields { headers[name] = value }
            return .success(HTTPResponse(status: http.statusCode, headers: headers, body: body))
        }
    }
}

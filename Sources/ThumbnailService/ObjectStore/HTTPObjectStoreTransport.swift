import AsyncHTTPClient
import Foundation
import NIOCore

/// The transport to a real store: AsyncHTTPClient, one client for the process (its connections
/// kept alive between requests, so a cache hit costs no handshake), redirects never followed (S3
/// redirects to another region, which must be configured, not guessed).
struct HTTPObjectStoreTransport: ObjectStoreTransport {
    /// Never shut down: it lives as long as the process, as `HTTPClient.shared` does.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(60))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func send(_ request: ObjectStoreRequest, maxBytes: Int) async throws(ObjectStoreError) -> ObjectStoreResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .RAW(value: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty || request.method == "PUT" { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        do {
            let response = try await Self.client.execute(outgoing, timeout: .hours(1))
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBytes { throw ObjectStoreError.tooLarge(limit: maxBytes) }
            var body = Data()
            for try await chunk in response.body {
                body.append(contentsOf: chunk.readableBytesView)
                if body.count > maxBytes { throw ObjectStoreError.tooLarge(limit: maxBytes) }
            }
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return ObjectStoreResponse(status: Int(response.status.code), headers: headers, body: body)
        } catch let error as ObjectStoreError {
            throw error
        } catch {
            throw .unreachable
        }
    }
}

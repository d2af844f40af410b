import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore

/// `http(s)` sources: fetched only under an `--allow-source` prefix, never from a loopback, private
/// or link-local address unless `--allow-private-sources`. The host is resolved here and the
/// connection pinned to the address that was checked, so a name that resolves elsewhere the second
/// time (DNS rebinding) cannot reach an internal address. Redirects are followed by hand, at most
/// three, each target checked the same way. The download stops as soon as it passes
/// `--max-source-bytes`; the format is judged by the bytes later, never by `Content-Type`.
struct RemoteSources: Sendable {
    let prefixes: [String]
    let allowInternal: Bool
    let maxBytes: Int
    let timeout: TimeAmount
    static let redirectLimit = 3

    func isRemote(_ source: String) -> Bool {
        source.hasPrefix("http://") || source.hasPrefix("https://")
    }

    /// The source's bytes, or the failure with the status it deserves (404 not allowed or not found,
    /// 413 too large, 502 origin error, 504 origin timeout).
    func fetch(_ source: String) async throws(ServiceFailure) -> Data {
        var location = source
        for _ in 0...Self.redirectLimit {
            let (host, address) = try check(location)
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.dnsOverride = [host: address]
            configuration.timeout = .init(connect: timeout, read: timeout)
            // A client per download has no other connection to fall back on: retrying a refused
            // connection until the timeout only held the request (and its worker) for nothing.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let result = await download(location, with: client)
            try? await client.shutdown()
            switch result {
            case .success(let data): return data
            case .failure(let failure): throw failure
            case .redirect(let target): location = target
            }
        }
        throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "more than \(Self.redirectLimit) redirects")
    }

    private enum Outcome {
        case success(Data)
        case failure(ServiceFailure)
        case redirect(String)
    }

    /// Allowed prefix, http(s), and an address that may be connected to: the host and that address.
    private func check(_ location: String) throws(ServiceFailure) -> (String, String) {
        let refused = ServiceFailure(status: .notFound, error: "source-not-allowed", detail: "the source is not under an allowed prefix or address")
        guard prefixes.contains(where: { location.hasPrefix($0) }), let url = URLComponents(string: location),
              ["http", "https"].contains(url.scheme?.lowercased()), let host = url.host, !host.isEmpty, url.user == nil else { throw refused }
        guard let addresses = SourceAddress.resolve(host), let first = addresses.first else {
            throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "the source's host does not resolve")
        }
        if !allowInternal, addresses.contains(where: SourceAddress.isInternal) { throw refused }
        return (host, first)
    }

    private func download(_ location: String, with client: HTTPClient) async -> Outcome {
        do {
            let response = try await client.execute(HTTPClientRequest(url: location), timeout: timeout)
            switch response.status.code {
            case 200:
                if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBytes {
                    return .failure(tooLarge)
                }
                var data = Data()
                for try await chunk in response.body {
                    data.append(contentsOf: chunk.readableBytesView)
                    // Stop reading at once: the client is shut down, which drops the connection.
                    if data.count > maxBytes { return .failure(tooLarge) }
                }
                return .success(data)
            case 301, 302, 303, 307, 308:
                guard let target = response.headers.first(name: "location"),
                      let resolved = URL(string: target, relativeTo: URL(string: location))?.absoluteString else {
                    return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "a redirect without a location"))
                }
                return .redirect(resolved)
            case 404, 410:
                return .failure(ServiceFailure(status: .notFound, error: "source-not-found", detail: "the origin has no such image"))
            default:
                return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "the origin answered \(response.status.code)"))
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return .failure(ServiceFailure(status: .gatewayTimeout, error: "origin-timeout", detail: "the origin did not answer in time"))
        } catch {
            return .failure(ServiceFailure(status: .badGateway, error: "origin-error", detail: "the origin could not be reached"))
        }
    }

    private var tooLarge: ServiceFailure {
        ServiceFailure(status: .contentTooLarge, error: "source-too-large", detail: "the source is over \(maxBytes) bytes")
    }
}

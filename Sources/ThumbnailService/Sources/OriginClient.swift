import AsyncHTTPClient
import Foundation
import Hummingbird
import ImagePipeline
import NIOCore

/// Talks to origins, and only to the ones allowed: a URL under an `--allow-source` prefix whose host
/// resolves to no loopback, private or link-local address (unless `--allow-private-sources`). The
/// host is resolved here and the connection pinned to the address that was checked, so a name that
/// resolves elsewhere the second time (DNS rebinding) cannot reach an internal address. Redirects
/// are followed by hand, at most three, each target checked the same way. A download stops as soon
/// as it passes `--max-source-bytes`.
struct OriginClient: SourceOrigin {
    let prefixes: [SourceURL]
    let allowInternal: Bool
    let maxBytes: Int
    let timeout: TimeAmount
    static let redirectLimit = 3
    var kind: String { "remote" }

    func claims(_ name: String) -> Bool {
        let scheme = name.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// The source's bytes, or why not, within `timeout` for the whole download (`Deadline`): every
    /// hop, headers and body; at the deadline the download is cancelled and the connection dropped.
    func download(_ source: SourceURL, validators: SourceCache.Record?) async throws(ServiceFailure) -> Fetched {
        let seconds = timeout.nanoseconds % 1_000_000_000 == 0 ? String(timeout.nanoseconds / 1_000_000_000) : String(Double(timeout.nanoseconds) / 1e9)
        return try await Deadline.run(within: .nanoseconds(timeout.nanoseconds),
                                      expired: { ServiceFailure(status: .gatewayTimeout, error: "origin-timeout", detail: "the download took longer than \(seconds) s") },
                                      cancelled: { ServiceFailure(.cancelled) }) { () throws(ServiceFailure) -> Fetched in
            try await hops(source, validators: validators)
        }
    }

    /// Follows redirects by hand, each target checked as the source was; each hop's host resolved
    /// once, here, and the connection pinned to the address checked.
    private func hops(_ source: SourceURL, validators: SourceCache.Record?) async throws(ServiceFailure) -> Fetched {
        var url = source
        for _ in 0...Self.redirectLimit {
            let address = try self.address(of: url)
            let host = url.host
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.dnsOverride = [host: address]
            configuration.timeout = .init(connect: timeout, read: timeout)
            // A client per download has no other connection to fall back on: retrying a refused
            // connection until the timeout only held the request (and its worker) for nothing.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let hop = await download(url.text, validators: validators, with: client)
            try? await client.shutdown()
            switch hop {
            case .fetched(let fetched): return fetched
            case .failure(let failure): throw failure
            case .redirect(let target): url = try allowed(target)
            }
        }
        throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "more than \(Self.redirectLimit) redirects")
    }

    /// What the origin sent: the image with its validators, or that the copy is still good.
    enum Fetched {
        case body(Data, etag: String?, lastModified: String?)
        case notModified
    }

    /// One request's answer, before redirects are followed.
    private enum Hop {
        case fetched(Fetched)
        case failure(ServiceFailure)
        case redirect(String)
    }

    /// The normalised URL, which is what gets requested, when it is under an allowed prefix (compared
    /// by parts, see `SourceURL`).
    func allowed(_ location: String) throws(ServiceFailure) -> SourceURL {
        guard let url = SourceURL(location), prefixes.contains(where: url.isUnder) else { throw ServiceFailure.sourceNotAllowed }
        return url
    }

    /// The address to connect to for `url`, when none of its host's addresses is internal (or they
    /// are allowed).
    private func address(of url: SourceURL) throws(ServiceFailure) -> String {
        guard let addresses = SourceAddress.resolve(url.host), let first = addresses.first else {
            throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "the source's host does not resolve")
        }
        if !allowInternal, !addresses.allSatisfy(SourceAddress.isGlobal) { throw ServiceFailure.sourceNotAllowed }
        return first
    }

    private func download(_ location: String, validators: SourceCache.Record?, with client: HTTPClient) async -> Hop {
        var request = HTTPClientRequest(url: location)
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        do {
            let response = try await client.execute(request, timeout: timeout)
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
                return .fetched(.body(data, etag: response.headers.first(name: "etag"), lastModified: response.headers.first(name: "last-modified")))
            case 304 where validators != nil:
                return .fetched(.notModified)
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

    private var tooLarge: ServiceFailure { .sourceTooLarge(limit: maxBytes) }
}

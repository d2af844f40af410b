import AsyncHTTPClient
import Foundation
import Hummingbird
import ImagePipeline
import NIOCore

/// `http(s)` sources: fetched only under an `--allow-source` prefix, never from a loopback, private
/// or link-local address unless `--allow-private-sources`. The host is resolved here and the
/// connection pinned to the address that was checked, so a name that resolves elsewhere the second
/// time (DNS rebinding) cannot reach an internal address. Redirects are followed by hand, at most
/// three, each target checked the same way. The download stops as soon as it passes
/// `--max-source-bytes`; the format is judged by the bytes later, never by `Content-Type`.
///
/// Concurrent requests for one source share one download (whatever sizes they ask for), and at
/// most `--max-downloads` sources are held at once, downloading or waiting to be rendered: more are
/// answered 503 at once, so a cold burst holds at most that many times `--max-source-bytes`.
struct RemoteSources: Sendable {
    let prefixes: [SourceURL]
    let allowInternal: Bool
    let maxBytes: Int
    let timeout: TimeAmount
    let slots: SourceSlots
    private let flights = SingleFlight<HeldSource>()
    static let redirectLimit = 3

    init(prefixes: [SourceURL], allowInternal: Bool, maxBytes: Int, timeout: TimeAmount, maxDownloads: Int) {
        (self.prefixes, self.allowInternal, self.maxBytes, self.timeout) = (prefixes, allowInternal, maxBytes, timeout)
        slots = SourceSlots(limit: maxDownloads)
    }

    func isRemote(_ source: String) -> Bool {
        source.hasPrefix("http://") || source.hasPrefix("https://")
    }

    /// The source's bytes, held (see `HeldSource`) until the caller lets go, or the failure with the
    /// status it deserves (404 not allowed or not found, 413 too large, 502 origin error, 503 too
    /// many sources held, 504 origin timeout).
    func fetch(_ source: String) async throws(ServiceFailure) -> HeldSource {
        let url = try allowed(source)
        do {
            return try await flights.run(url.text) { [self] () throws(ServiceFailure) -> HeldSource in
                guard slots.acquire() else {
                    var busy = ServiceFailure(status: .serviceUnavailable, error: "overloaded",
                                              detail: "\(slots.limit) sources are being fetched or waiting; try again shortly")
                    busy.retryAfter = 1
                    throw busy
                }
                let held = HeldSource(slots: slots)
                held.data = try await download(url)
                held.digest = Fingerprint.hex(held.data)
                return held
            }
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            throw ServiceFailure(status: .serviceUnavailable, error: "cancelled", detail: "the request went away")
        }
    }

    /// Follows redirects by hand, each target checked as the source was; each hop's host resolved
    /// once, here, and the connection pinned to the address checked.
    private func download(_ source: SourceURL) async throws(ServiceFailure) -> Data {
        var url = source
        for _ in 0...Self.redirectLimit {
            let address = try address(of: url)
            let host = url.host
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.dnsOverride = [host: address]
            configuration.timeout = .init(connect: timeout, read: timeout)
            // A client per download has no other connection to fall back on: retrying a refused
            // connection until the timeout only held the request (and its worker) for nothing.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let result = await download(url.text, with: client)
            try? await client.shutdown()
            switch result {
            case .success(let data): return data
            case .failure(let failure): throw failure
            case .redirect(let target): url = try allowed(target)
            }
        }
        throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "more than \(Self.redirectLimit) redirects")
    }

    private enum Outcome {
        case success(Data)
        case failure(ServiceFailure)
        case redirect(String)
    }

    /// The normalised URL, which is what gets requested, when it is under an allowed prefix (compared
    /// by parts, see `SourceURL`).
    private func allowed(_ location: String) throws(ServiceFailure) -> SourceURL {
        guard let url = SourceURL(location), prefixes.contains(where: url.isUnder) else { throw Self.refused }
        return url
    }

    /// The address to connect to for `url`, when none of its host's addresses is internal (or they
    /// are allowed).
    private func address(of url: SourceURL) throws(ServiceFailure) -> String {
        guard let addresses = SourceAddress.resolve(url.host), let first = addresses.first else {
            throw ServiceFailure(status: .badGateway, error: "origin-error", detail: "the source's host does not resolve")
        }
        if !allowInternal, addresses.contains(where: SourceAddress.isInternal) { throw Self.refused }
        return first
    }

    private static let refused = ServiceFailure(status: .notFound, error: "source-not-allowed",
                                                detail: "the source is not under an allowed prefix or address")

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

    var tooLarge: ServiceFailure {
        ServiceFailure(status: .contentTooLarge, error: "source-too-large", detail: "the source is over \(maxBytes) bytes")
    }
}

/// Sources held in memory at once, downloading or waiting to be rendered (`--max-downloads`).
final class SourceSlots: Sendable {
    let limit: Int
    private let held = Locked(0)

    init(limit: Int) { self.limit = limit }

    func acquire() -> Bool {
        held.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func release() { held.withLock { $0 -= 1 } }
}

/// A downloaded source and its slot: the slot is given back when the last request using the bytes
/// lets go of this, so the count is of bytes really held, however many requests share them.
final class HeldSource: @unchecked Sendable {
    private let slots: SourceSlots
    /// Set once, by the download that owns this, before anyone else sees it: the bytes and their
    /// digest (the source's fingerprint in output ETags, computed once however many share it).
    fileprivate(set) var data = Data()
    fileprivate(set) var digest = ""

    init(slots: SourceSlots) { self.slots = slots }

    deinit { slots.release() }
}

import Foundation

/// `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`), read from the configured store
/// (`ObjectStore`) with the service's credentials, from the buckets `S3SourceRule` allows: no other
/// bucket is read however the key is spelt. Given to `RemoteSources`, so
/// an object costs what an http(s) source costs: the source cache, its byte limit, the download
/// deadline and one bucket's share of the download slots; revalidated with S3's own conditional GET.
struct S3Origin: SourceOrigin {
    let store: ObjectStore
    let rule: S3SourceRule
    let maxBytes: Int
    let timeout: Duration
    var kind: String { "s3" }

    func claims(_ name: String) -> Bool { name.hasPrefix(ObjectKey.scheme) }

    func allowed(_ name: String) throws(ServiceFailure) -> SourceURL {
        let object: ObjectKey
        do { object = try ObjectKey(parsing: name) } catch {
            throw ServiceFailure(status: .notFound, error: "source-not-found", detail: error.description)
        }
        let url = SourceURL(object)
        guard rule.allows(url) else { throw ServiceFailure.sourceNotAllowed }
        return url
    }

    /// S3 asks clients to try a 500 (`InternalError`) or 503 (`SlowDown`) again after a pause, as
    /// the AWS SDKs (imgproxy's among them) do: up to `retries` more times, 100 then 200 ms apart,
    /// all within the download's one deadline.
    static let retries = 2
    static let retriedStatuses: Set<Int> = [500, 503]
    static let pause = Duration.milliseconds(100)

    func download(_ source: SourceURL, validators: SourceCache.Record?) async throws(ServiceFailure) -> OriginClient.Fetched {
        guard let object = source.objectKey else { throw ServiceFailure.sourceNotAllowed }
        var headers: [(name: String, value: String)] = []
        if let etag = validators?.etag { headers.append((name: "if-none-match", value: etag)) }
        if let lastModified = validators?.lastModified { headers.append((name: "if-modified-since", value: lastModified)) }
        let deadline = ContinuousClock.now + timeout
        var retried = 0
        var response: ObjectStoreResponse?
        while true {
            do {
                response = try await store.get(object, headers: headers, maxBytes: maxBytes, within: deadline - .now)
                break
            } catch .refused(let status, _) where Self.retriedStatuses.contains(status) && retried < Self.retries && .now < deadline {
                retried += 1
                try? await Task.sleep(for: min(Self.pause * retried, deadline - .now))
            } catch {
                throw Self.failure(error, maxBytes: maxBytes)
            }
        }
        guard let response else { throw ServiceFailure(status: .notFound, error: "source-not-found", detail: "the bucket has no such object") }
        if response.status == 304, validators != nil { return .notModified }
        return .body(response.body, etag: response.headers["etag"], lastModified: response.headers["last-modified"])
    }

    /// The client's answer for a store that failed: what an origin's failure of the same kind gets.
    static func failure(_ error: ObjectStoreError, maxBytes: Int) -> ServiceFailure {
        switch error {
        case .tooLarge: .sourceTooLarge(limit: maxBytes)
        case .timedOut: ServiceFailure(status: .gatewayTimeout, error: "origin-timeout", detail: "the object store did not answer in time")
        case .unreachable: ServiceFailure(status: .badGateway, error: "origin-error", detail: "the object store could not be reached")
        case .refused(let status, _): ServiceFailure(status: .badGateway, error: "origin-error", detail: "the object store answered \(status)")
        }
    }
}

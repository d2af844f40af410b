import Foundation

/// An S3-compatible object store, as the service reads and writes it: objects by bucket and key,
/// each request signed (`SigV4Signer`; unsigned without credentials, for public buckets), sent
/// through a transport (`ObjectStoreTransport`) within a deadline of its own. The endpoint is the
/// operator's configuration, not a URL a client chose, so it may be on loopback or a private
/// network (MinIO, a cluster's own store): no address check applies to it. A key from a URL is
/// encoded byte by byte into the path (`ObjectKey`), so it can name only an object of its bucket.
struct ObjectStore: Sendable {
    /// `scheme://host[:port]`, no path: the store's root.
    let endpoint: URLComponents
    let region: String
    /// `endpoint/bucket/key` (MinIO, moto, most stores) rather than `bucket.endpoint/key` (AWS's default).
    let pathStyle: Bool
    let credentials: AWSCredentials?
    let transport: any ObjectStoreTransport
    let clock: @Sendable () -> Date

    init(endpoint: String?, region: String, pathStyle: Bool, credentials: AWSCredentials?,
         transport: any ObjectStoreTransport = HTTPObjectStoreTransport(), clock: @escaping @Sendable () -> Date = Date.init) {
        let text = endpoint ?? "https://s3.\(region).amazonaws.com"
        self.endpoint = URLComponents(string: text) ?? URLComponents()
        // AWS's own endpoint takes virtual hosts; a bucket name with dots would not match its certificate.
        self.pathStyle = endpoint == nil ? false : pathStyle
        (self.region, self.credentials, self.transport, self.clock) = (region, credentials, transport, clock)
    }

    /// Where and how the store is asked, for the start-up log: never the key, only whether there is one.
    var summary: String {
        "\(endpoint.string ?? "") (region \(region), \(pathStyle ? "path style" : "virtual hosts"), \(credentials == nil ? "unsigned" : "signed"))"
    }

    /// Whether the endpoint's host is an IP address, before which no bucket name makes a host name
    /// (`--no-s3-path-style`'s `BUCKET.HOST`).
    static func isIPAddress(endpoint text: String) -> Bool {
        guard let host = URLComponents(string: text)?.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return false }
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// What `--s3-endpoint` must be: an http(s) URL of a host, with no path, query or user.
    static func endpointProblem(_ text: String) -> String? {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil, parts.query == nil,
              parts.path.isEmpty || parts.path == "/" else {
            return "takes the store's http(s) URL, e.g. http://127.0.0.1:9000 or https://s3.eu-central-1.amazonaws.com (no path)"
        }
        return nil
    }

    /// The object, or nil when there is none (404, but not a missing bucket: that is the
    /// configuration's mistake); 304 comes back as a response for the caller's validators. Any
    /// other status is thrown.
    func get(_ key: ObjectKey, headers: [(name: String, value: String)] = [], maxBytes: Int, within timeout: Duration) async throws(ObjectStoreError) -> ObjectStoreResponse? {
        let response = try await send("GET", key, headers: headers, body: Data(), maxBytes: maxBytes, within: timeout)
        switch response.status {
        case 200, 304: return response
        case 404 where Self.errorCode(response.body) != "NoSuchBucket": return nil
        default: throw .refused(status: response.status, code: Self.errorCode(response.body))
        }
    }

    /// Writes the object whole: S3 keeps either the old object or this one, never a part.
    func put(_ key: ObjectKey, body: Data, headers: [(name: String, value: String)], within timeout: Duration) async throws(ObjectStoreError) {
        let response = try await send("PUT", key, headers: headers, body: body, maxBytes: 64 << 10, within: timeout)
        guard response.status == 200 else { throw .refused(status: response.status, code: Self.errorCode(response.body)) }
    }

    /// One signed request, with its whole answer, or the deadline's error.
    func send(_ method: String, _ key: ObjectKey, headers: [(name: String, value: String)], body: Data, maxBytes: Int,
              within timeout: Duration) async throws(ObjectStoreError) -> ObjectStoreResponse {
        let request = signed(method, key, headers: headers, body: body)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return try await Deadline.run(within: timeout, expired: { ObjectStoreError.timedOut(seconds: seconds) }, cancelled: { ObjectStoreError.timedOut(seconds: seconds) }) {
            () throws(ObjectStoreError) -> ObjectStoreResponse in
            try await transport.send(request, maxBytes: maxBytes)
        }
    }

    /// The request as sent: the URL for the key, the `host` header the signature covers, the
    /// payload's hash, and the signature's headers.
    func signed(_ method: String, _ key: ObjectKey, headers: [(name: String, value: String)], body: Data) -> ObjectStoreRequest {
        let scheme = endpoint.scheme ?? "https"
        let port = endpoint.port.map { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? "" : ":\($0)" } ?? ""
        let endpointHost = endpoint.host ?? ""
        let host = (pathStyle ? endpointHost : "\(key.bucket).\(endpointHost)") + port
        let path = pathStyle ? "/\(key.bucket)/\(key.encodedKey)" : "/\(key.encodedKey)"
        let payloadHash = SigV4Signer.hexSHA256(body)
        var all = [(name: "host", value: host), (name: "x-amz-content-sha256", value: payloadHash)] + headers
        if let credentials {
            let signer = SigV4Signer(credentials: credentials, region: region, service: "s3")
            all += signer.signingHeaders(for: .init(method: method, path: path, headers: all, payloadHash: payloadHash), at: clock())
        }
        return ObjectStoreRequest(method: method, url: "\(scheme)://\(host)\(path)", headers: all, body: body)
    }

    /// The `<Code>` of an S3 error body, if it is one; only the code, never the rest (which may
    /// echo the string that was signed).
    static func errorCode(_ body: Data) -> String? {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let start = text.range(of: "<Code>"), let end = text.range(of: "</Code>", range: start.upperBound..<text.endIndex) else { return nil }
        let code = text[start.upperBound..<end.lowerBound]
        return code.count <= 64 && code.allSatisfy({ $0.isLetter || $0.isNumber }) ? String(code) : nil
    }
}

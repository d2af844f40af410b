import Foundation

/// Builds every request the uploader sends, for one server and dialect, exactly as the dialect's
/// server expects it. Register and edit are validated first: a request that breaks any rule is
/// never built, and every broken rule is listed in one error.
public struct RequestBuilder: Sendable {
    public let baseURL: URL
    public let dialect: Dialect
    public var rules = ImageRules()

    /// `baseURL` as typed (`HTTP://Host:8080//`) is sent as the transport takes it: the scheme in
    /// lower case and no trailing slashes, so every spelling the publish record takes for one server
    /// also reaches it.
    public init(baseURL: URL, dialect: Dialect) {
        if var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) {
            components.scheme = components.scheme?.lowercased()
            var path = components.path
            while path.hasSuffix("/") { path.removeLast() }
            components.path = path
            self.baseURL = components.url ?? baseURL
        } else {
            self.baseURL = baseURL
        }
        self.dialect = dialect
    }

    public func register(_ draft: ProductDraft, images: [UploadImage], credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        try check(draft.problems(for: dialect) + credentialProblems(credentials) + imageProblems(images))
        return try write("POST", path: dialect == .items ? "/item" : "/api/products",
                         fields: ProductFields(ProductChange(draft), dialect: dialect), images: images, credentials: credentials)
    }

    /// Whether this server would take `draft` with `images` as a new product, checked as `register`
    /// checks them but without credentials or a request: for planning before anything is sent.
    public func checkRegister(_ draft: ProductDraft, images: [UploadImage]) throws(OpenMarketError) {
        try check(draft.problems(for: dialect) + imageProblems(images))
    }

    /// On G1 the images, when given, become the product's images; G2/G3 cannot change images at all.
    public func edit(id: Int, _ change: ProductChange, images: [UploadImage] = [], credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        if !images.isEmpty { try checkImagesCanChange() }
        var problems = change.problems(for: dialect) + credentialProblems(credentials)
        if change.isEmpty && images.isEmpty { problems.append("nothing to change: give a field to edit or images to attach") }
        if !images.isEmpty { problems += imageProblems(images) }
        try check(problems)
        return try write("PATCH", path: dialect == .items ? "/item/\(id)" : "/api/products/\(id)",
                         fields: ProductFields(change, dialect: dialect), images: images, credentials: credentials)
    }

    /// Register and edit in each dialect's shape: G1 multipart fields, its password and `images[]`
    /// parts; G2 and G3 a JSON object with the vendor secret, in a `params` part beside the images
    /// when registering and as the whole body when editing.
    private func write(_ method: String, path: String, fields: ProductFields, images: [UploadImage],
                       credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        var fields = fields
        let imageParts = images.map(imagePart)
        switch credentials {
        case .password(let password):
            fields.add("password", .text(password.reveal))
            return try multipart(method, path: path, headers: [], parts: fields.multipartParts + imageParts)
        case .vendor(let identifier, let secret):
            fields.add("secret", .text(secret.reveal))
            guard method == "POST" else {
                return request(method, path: path, headers: [("identifier", identifier)], body: .json(fields.json))
            }
            let params = MultipartFormData.Part(name: "params", contentType: "application/json", data: fields.json)
            return try multipart(method, path: path, headers: [("identifier", identifier)], parts: [params] + imageParts)
        }
    }

    /// Throws unless this dialect's edit can carry images (G1 only), so a caller can refuse before
    /// preparing any photo.
    public func checkImagesCanChange() throws(OpenMarketError) {
        guard dialect.canChangeImages else {
            throw .unsupported("the \(dialect.rawValue) server cannot change a product's images after it is registered "
                + "(its PATCH takes JSON only); register the product again with the new images, or pick one of its "
                + "current images as the thumbnail")
        }
    }

    /// One page of the product list. Only G3 searches (`search_value`); G1 pages are a fixed size.
    /// Values are escaped but for the unreserved characters: `URLQueryItem` leaves `+` as it is,
    /// which a server reads as a space ("C++ Mug" searched as "C   Mug").
    public func products(page: Int, itemsPerPage: Int = 20, search: String? = nil) -> OpenMarketRequest {
        if dialect == .items { return request("GET", path: "/items/\(page)", headers: [], body: .none) }
        var request = request("GET", path: "/api/products", headers: [], body: .none)
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let query = [("page_no", String(page)), ("items_per_page", String(itemsPerPage))]
            + (dialect == .openmarket ? search.map { [("search_value", $0)] } ?? [] : [])
        components?.percentEncodedQuery = query.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")
        }.joined(separator: "&")
        request.url = components?.url ?? request.url
        return request
    }

    /// RFC 3986's unreserved characters: the only ones a query value carries unescaped.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public func product(id: Int) -> OpenMarketRequest {
        request("GET", path: dialect == .items ? "/item/\(id)" : "/api/products/\(id)", headers: [], body: .none)
    }

    /// G1 deletes in one request; G2 and G3 first exchange the vendor secret for a product secret
    /// (G2) or a deletion URI (G3) — `deletionLookup` — and then send `deletion(...)`.
    func deletion(id: Int, credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        try check(credentialProblems(credentials))
        guard case .password(let password) = credentials else { throw .invalid(credentialProblems(credentials)) }
        var body = ProductFields(ProductChange(), dialect: dialect)
        body.add("password", .text(password.reveal))
        return request("DELETE", path: "/item/\(id)", headers: [], body: .json(body.json))
    }

    func deletionLookup(id: Int, credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        try check(credentialProblems(credentials))
        guard case .vendor(let identifier, let secret) = credentials else { throw .invalid(credentialProblems(credentials)) }
        let path = dialect == .marketTraining ? "/api/products/\(id)/secret" : "/api/products/\(id)/archived"
        var body = ProductFields(ProductChange(), dialect: dialect)
        body.add("secret", .text(secret.reveal))
        return request("POST", path: path, headers: [("identifier", identifier)], body: .json(body.json))
    }

    /// G2: `DELETE /api/products/{id}/{product secret}` — the product secret from the lookup, never
    /// the vendor secret. G3: the URI the lookup returned, on this host.
    func deletion(id: Int, lookupAnswer: String, credentials: Credentials) throws(OpenMarketError) -> OpenMarketRequest {
        guard case .vendor(let identifier, _) = credentials else { throw .invalid(credentialProblems(credentials)) }
        let answer = lookupAnswer.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"")))
        guard !answer.isEmpty, !answer.contains(where: { $0.isWhitespace }) else {
            throw .invalidResponse("the server's deletion answer was \"\(lookupAnswer.prefix(80))\"")
        }
        if dialect == .marketTraining {
            let escaped = answer.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? answer
            return request("DELETE", path: "/api/products/\(id)/\(escaped)", headers: [("identifier", identifier)], body: .none)
        }
        let path: String
        if let absolute = URL(string: answer), absolute.host != nil {
            path = absolute.path
        } else {
            path = answer.hasPrefix("/") ? answer : "/" + answer
        }
        return request("DELETE", path: path, headers: [("identifier", identifier)], body: .none)
    }

    /// The requests `delete` sends, for showing them: on G2/G3 the second depends on the server's
    /// answer to the first, so a stand-in (`PRODUCT_SECRET`, `DELETION_TOKEN`) takes its place.
    public func deletionPreview(id: Int, credentials: Credentials) throws(OpenMarketError) -> [OpenMarketRequest] {
        if dialect == .items { return [try deletion(id: id, credentials: credentials)] }
        let standIn = dialect == .marketTraining ? "PRODUCT_SECRET" : "api/products/\(id)/archived/DELETION_TOKEN"
        return [try deletionLookup(id: id, credentials: credentials), try deletion(id: id, lookupAnswer: standIn, credentials: credentials)]
    }

    private func imagePart(_ image: UploadImage) -> MultipartFormData.Part {
        let type = ImageType(sniffing: image.data.prefix(16)) ?? .jpeg
        return MultipartFormData.Part(name: dialect.imagePartName, filename: image.filename, contentType: type.mimeType, data: image.data)
    }

    private func credentialProblems(_ credentials: Credentials) -> [String] {
        switch (credentials, dialect.usesVendorCredentials) {
        case (.password(let password), false):
            return password.reveal.isEmpty ? ["the password must not be empty"] : []
        case (.vendor(let identifier, let secret), true):
            return (identifier.isEmpty ? ["the vendor identifier must not be empty"] : [])
                + (secret.reveal.isEmpty ? ["the vendor secret must not be empty"] : [])
        case (.password, true):
            return ["the \(dialect.rawValue) server needs a vendor identifier and secret, not a password"]
        case (.vendor, false):
            return ["the items server needs the product's password, not a vendor identifier and secret"]
        }
    }

    private func imageProblems(_ images: [UploadImage]) -> [String] { rules.violations(images) }

    private func check(_ problems: [String]) throws(OpenMarketError) {
        if !problems.isEmpty { throw .invalid(problems) }
    }

    private func multipart(_ method: String, path: String, headers: [(String, String)], parts: [MultipartFormData.Part]) throws(OpenMarketError) -> OpenMarketRequest {
        do {
            return request(method, path: path, headers: headers, body: .multipart(try MultipartFormData(parts: parts)))
        } catch {
            throw .invalid(["\(error)"])
        }
    }

    private func request(_ method: String, path: String, headers: [(String, String)], body: OpenMarketRequest.Body) -> OpenMarketRequest {
        OpenMarketRequest(method: method, url: baseURL.appendingPathComponent(String(path.dropFirst())),
                          headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
    }
}

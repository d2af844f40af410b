import FlyingFox
import Foundation
import MarketUploader
import MultipartKit
import NIOCore

/// An OpenMarket-compatible server on loopback, for the uploader tests. It speaks one dialect,
/// parses multipart bodies with vapor/multipart-kit (not with the uploader's own code), enforces the
/// servers' rules, answers in the document's shapes, and keeps what it received for assertions.
public actor OpenMarketTestServer {
    public static let identifier = TestSecrets.identifier
    public static let vendorSecret = TestSecrets.vendorSecret
    public static let password = TestSecrets.password

    /// A request as the server saw it.
    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var query: [String: String]
        public var headers: [String: String]
        public var body: Data
        public var parts: [Part]
    }

    public struct Part: Sendable, Equatable {
        public var headers: [String: String]
        public var name: String?
        public var filename: String?
        public var body: Data
    }

    public struct Stored: Sendable {
        public var id: Int
        public var fields: [String: String]
        public var images: [(filename: String, contentType: String, data: Data)]
        public var password: String?
        public var created = Date()
        /// The `bargain_price` answered when the server keeps one stale (`keepBargainPriceOnEdit`).
        public var keptBargainPrice: Double?
    }

    /// Faults a test can arm; each applies to the next matching request only.
    public enum Fault: Sendable {
        case status(Int, body: String)
        /// An answer of any bytes, UTF-8 or not.
        case bytes(Int, body: Data)
        case delay(seconds: Double)
        case garbage
        /// Opens `arrived` once the request is in, answers only after `release` opens, then opens
        /// `handled`: a test orders "the request reached the server", "the client went away" and
        /// "the server acted on it anyway" by these, not by sleeps.
        case hold(until: Gate, arrived: Gate, handled: Gate)
        /// Answers `status` with `Location: location`; with `acting`, carries the request out first
        /// (a register is listed, then its answer points away).
        case redirect(Int, location: String, acting: Bool)
        /// Refuses with `status`, quoting the request's body in its message, as careless servers do.
        case echo(Int)
    }

    public let dialect: Dialect
    private let server: HTTPServer
    private var task: Task<Void, Error>?
    public private(set) var received: [Received] = []
    public private(set) var products: [Int: Stored] = [:]
    private var listsSummaries = false
    private var nextID = 100
    /// Each with the method of the requests it waits for (nil: any).
    private var faults: [(fault: Fault, method: String?)] = []
    private var deletionTokens: [Int: String] = [:]
    /// Where the uploaded images are served, as the real servers' image hosts serve them: on this
    /// server's own port, under `/images/{product id}/`.
    private var imageHost = ""
    /// How far this server's clock is ahead of ours, and how it writes `created_at`.
    private var clockOffset: TimeInterval = 0
    private var keepsBargainPrice = false
    private var createdAtText: @Sendable (Date) -> String = ServerClock.text

    public init(dialect: Dialect) throws {
        self.dialect = dialect
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 10, logger: .disabled)
    }

    /// Starts listening and returns the base URL.
    public func start() async throws -> URL {
        let server = self.server
        await server.appendRoute("*") { [weak self] request in
            guard let self else { return FlyingFox.HTTPResponse(statusCode: .internalServerError) }
            return await self.handle(request)
        }
        task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        imageHost = "http://127.0.0.1:\(port)/images"
        return URL(string: "http://127.0.0.1:\(port)")!
    }

    public func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    /// Arms `fault` for the next request, or the next with `method` (a register's `POST`, past the
    /// reads a publish plans with).
    public func arm(_ fault: Fault, for method: String? = nil) { faults.append((fault, method)) }

    /// Sets this server's clock `offset` seconds ahead of ours (its `Date` header and `created_at`
    /// follow it) and how it writes `created_at`: a server in another zone, or one that writes a
    /// fixed date.
    public func setClock(offset: TimeInterval, createdAt: @escaping @Sendable (Date) -> String) {
        (clockOffset, createdAtText) = (offset, createdAt)
    }

    /// Makes this server answer each product's `bargain_price` as it was before its first edit, as
    /// a server that leaves the field stale after a PATCH does; `discounted_price` stays current.
    public func keepBargainPriceOnEdit() { keepsBargainPrice = true }

    public var lastRequest: Received? { received.last }
    public var requestCount: Int { received.count }

    private func handle(_ request: HTTPRequest) async -> FlyingFox.HTTPResponse {
        let body = (try? await request.bodyData) ?? Data()
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        let query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        var received = Received(method: request.method.rawValue, path: request.path, query: query, headers: headers, body: body, parts: [])
        defer { self.received.append(received) }

        if let armed = faults.firstIndex(where: { $0.method == nil || $0.method == received.method }) {
            switch faults.remove(at: armed).fault {
            case .status(let code, let text): return respond(code, text)
            case .bytes(let code, let data):
                return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(code, phrase: "Answer"), headers: FlyingFox.HTTPHeaders([.contentType: "application/json"]), body: data)
            case .delay(let seconds): try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            case .garbage: return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("<html>not json".utf8))
            case .echo(let status):
                return respond(status, String(decoding: try! JSONSerialization.data(withJSONObject: ["code": status, "message": String(decoding: body, as: UTF8.self)]), as: UTF8.self))
            case .redirect(let status, let location, let acting):
                if acting { _ = answer(&received, headers: headers) }
                return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Redirect"), headers: FlyingFox.HTTPHeaders([.location: location]))
            case .hold(let release, let arrived, let handled):
                await arrived.open()
                await release.wait()
                let response = answer(&received, headers: headers)
                await handled.open()
                return response
            }
        }
        return answer(&received, headers: headers)
    }

    /// Parses the request's parts and routes it.
    private func answer(_ received: inout Received, headers: [String: String]) -> FlyingFox.HTTPResponse {
        do {
            if headers["content-type"]?.hasPrefix("multipart/form-data") == true {
                received.parts = try Self.parseMultipart(received.body, contentType: headers["content-type"] ?? "")
            }
            return try route(received)
        } catch let failure as Failure {
            return error(failure.status, failure.message)
        } catch {
            return self.error(400, "\(error)")
        }
    }

    public struct Failure: Error {
        public var status: Int
        public var message: String
    }

    // MARK: Routing

    private func route(_ request: Received) throws -> FlyingFox.HTTPResponse {
        let path = request.path.split(separator: "/").map(String.init)
        if request.method == "GET", path.count == 3, path[0] == "images" { return try image(path) }
        switch (dialect, request.method, path.count) {
        case (.items, "POST", 1) where path == ["item"]:
            return try registerItem(request)
        case (.items, "PATCH", 2) where path[0] == "item":
            return try editItem(try productID(path[1]), request)
        case (.items, "GET", 2) where path[0] == "items":
            let page = try productID(path[1])
            return json(["page": page, "items": try newestFirst(page: page, perPage: 20).map(itemJSON).map(listed)])
        case (_, "GET", 2) where path == ["api", "products"]:
            return listJSON(request.query)
        case (.items, "GET", 2) where path[0] == "item":
            return json(try itemJSON(try stored(try productID(path[1]))))
        case (.items, "DELETE", 2) where path[0] == "item":
            let id = try productID(path[1])
            let product = try stored(id)
            let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: String]
            guard body?["password"] == product.password else { throw Failure(status: 401, message: "Wrong password") }
            products[id] = nil
            return json(try itemJSON(product))
        case (_, "GET", 1) where path == ["healthChecker"]:
            return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("\"OK\"".utf8))
        case (_, "POST", 2) where path == ["api", "products"]:
            try requireVendor(request)
            return try registerProduct(request)
        case (_, "PATCH", 3) where path[0...1] == ["api", "products"]:
            try requireVendor(request)
            return try editProduct(try productID(path[2]), request)
        case (_, "GET", 3) where path[0...1] == ["api", "products"]:
            return json(productJSON(try stored(try productID(path[2]))))
        case (.marketTraining, "POST", 4) where path[3] == "secret", (.openmarket, "POST", 4) where path[3] == "archived":
            try requireVendor(request)
            let id = try productID(path[2])
            _ = try stored(id)
            let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: String]
            guard body?["secret"] == Self.vendorSecret else { throw Failure(status: 401, message: "secret is wrong") }
            let token = UUID().uuidString.lowercased()
            deletionTokens[id] = token
            // G3 answers a URI without the leading slash; clients must add it.
            let answer = dialect == .marketTraining ? token : "api/products/\(id)/archived/\(token)"
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders([.contentType: "text/plain"]), body: Data(answer.utf8))
        case (.marketTraining, "DELETE", 4):
            try requireVendor(request)
            let id = try productID(path[2])
            if path[3] == Self.vendorSecret { throw Failure(status: 400, message: "the vendor secret is not a product secret") }
            guard deletionTokens[id] == path[3] else { throw Failure(status: 404, message: "no such product secret") }
            products[id] = nil
            return FlyingFox.HTTPResponse(statusCode: .noContent)
        case (.openmarket, "DELETE", 5) where path[3] == "archived":
            try requireVendor(request)
            let id = try productID(path[2])
            guard deletionTokens[id] == path[4] else { throw Failure(status: 404, message: "no such deletion URI") }
            products[id] = nil
            return FlyingFox.HTTPResponse(statusCode: .noContent)
        default:
            throw Failure(status: 404, message: "no route for \(request.method) \(request.path)")
        }
    }

    // MARK: G1

    private func registerItem(_ request: Received) throws -> FlyingFox.HTTPResponse {
        let fields = try textFields(request.parts, allowed: ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password"])
        for required in ["title", "descriptions", "price", "currency", "stock", "password"] where fields[required] == nil {
            throw Failure(status: 400, message: "\(required) is required")
        }
        let images = try checkedImages(request.parts, partName: "images[]", required: true)
        let id = allocateID()
        products[id] = Stored(id: id, fields: fields, images: images, password: fields["password"])
        return json(try itemJSON(try stored(id)))
    }

    private func editItem(_ id: Int, _ request: Received) throws -> FlyingFox.HTTPResponse {
        var product = try stored(id)
        let fields = try textFields(request.parts, allowed: ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password"])
        guard fields["password"] == product.password else { throw Failure(status: 401, message: "Wrong password") }
        for (key, value) in fields where key != "password" { product.fields[key] = value }
        let images = try checkedImages(request.parts, partName: "images[]", required: false)
        if !images.isEmpty { product.images = images }
        products[id] = product
        return json(try itemJSON(product))
    }

    private func itemJSON(_ product: Stored) throws -> [String: Any] {
        var object: [String: Any] = [
            "id": product.id, "title": product.fields["title"] ?? "", "descriptions": product.fields["descriptions"] ?? "",
            "price": Double(product.fields["price"] ?? "") ?? 0, "currency": product.fields["currency"] ?? "",
            "stock": Int(product.fields["stock"] ?? "") ?? 0,
            "images": product.images.indices.map { "\(imageHost)/\(product.id)/\($0).jpg" },
            "thumbnails": product.images.indices.map { "\(imageHost)/\(product.id)/thumb-\($0).jpg" },
            "registration_date": product.created.addingTimeInterval(clockOffset).timeIntervalSince1970,
        ]
        if let discounted = product.fields["discounted_price"] { object["discounted_price"] = Double(discounted) ?? 0 }
        return object
    }

    /// `/images/{id}/{n}.jpg` (and the server's `thumb-{n}.jpg`): the bytes uploaded as image n.
    private func image(_ path: [String]) throws -> FlyingFox.HTTPResponse {
        let number = path[2].split(separator: ".").first.map { $0.split(separator: "-").last.map(String.init) ?? "" } ?? ""
        guard let product = products[try productID(path[1])], let index = Int(number) ?? (path[2].hasPrefix("thumb.") ? 0 : nil),
              product.images.indices.contains(index) else { throw Failure(status: 404, message: "no such image") }
        let image = product.images[index]
        return FlyingFox.HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders([.contentType: image.contentType, .eTag: "\"\(product.id)-\(index)\""]), body: image.data)
    }

    // MARK: G2 / G3

    private func requireVendor(_ request: Received) throws {
        guard request.headers["identifier"] == Self.identifier else {
            throw Failure(status: 401, message: "identifier header is missing or unknown")
        }
    }

    private func registerProduct(_ request: Received) throws -> FlyingFox.HTTPResponse {
        guard let paramsPart = request.parts.first(where: { $0.name == "params" }) else {
            throw Failure(status: 400, message: "MissingServletRequestPartException: Required request part 'params' is not present")
        }
        if let stray = request.parts.first(where: { $0.name != "params" && $0.name != "images" }) {
            throw Failure(status: 400, message: "unexpected part \(stray.name ?? "(unnamed)")")
        }
        guard paramsPart.headers["content-type"]?.hasPrefix("application/json") == true else {
            throw Failure(status: 415, message: "params must be application/json")
        }
        guard let params = try? JSONSerialization.jsonObject(with: paramsPart.body) as? [String: Any] else {
            throw Failure(status: 400, message: "JSON parse error: params is not a JSON object")
        }
        let descriptionKey = dialect == .openmarket ? "description" : "descriptions"
        let allowed: Set<String> = ["name", descriptionKey, "price", "currency", "discounted_price", "stock", "secret"]
        if let unknown = params.keys.first(where: { !allowed.contains($0) }) {
            throw Failure(status: 400, message: "JSON parse error: Unrecognized field \"\(unknown)\"")
        }
        guard params["secret"] as? String == Self.vendorSecret else { throw Failure(status: 401, message: "secret is wrong") }
        guard let name = params["name"] as? String, (3...100).contains(name.count) else {
            throw Failure(status: 400, message: "name must be 3 to 100 characters")
        }
        guard let description = params[descriptionKey] as? String, (10...1000).contains(description.count) else {
            throw Failure(status: 400, message: "\(descriptionKey) must be 10 to 1000 characters")
        }
        guard let price = params["price"] as? Double else { throw Failure(status: 400, message: "price must be a number") }
        guard let currency = params["currency"] as? String, ["KRW", "USD"].contains(currency) else {
            throw Failure(status: 400, message: "currency must be KRW or USD")
        }
        let discounted = params["discounted_price"] as? Double
        if let discounted, discounted > price { throw Failure(status: 400, message: "discounted_price exceeds price") }
        let images = try checkedImages(request.parts, partName: "images", required: true)
        let id = allocateID()
        var fields = ["name": name, "description": description, "price": "\(price)", "currency": currency,
                      "stock": "\(params["stock"] as? Int ?? 0)"]
        fields["discounted_price"] = discounted.map { "\($0)" }
        products[id] = Stored(id: id, fields: fields, images: images, password: nil)
        return json(productJSON(try stored(id)))
    }

    private func editProduct(_ id: Int, _ request: Received) throws -> FlyingFox.HTTPResponse {
        guard request.headers["content-type"]?.hasPrefix("application/json") == true,
              let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
            throw Failure(status: 400, message: "JSON parse error")
        }
        guard body["secret"] as? String == Self.vendorSecret else { throw Failure(status: 401, message: "secret is wrong") }
        var product = try stored(id)
        if keepsBargainPrice, product.keptBargainPrice == nil { product.keptBargainPrice = Self.bargainPrice(of: product) }
        let descriptionKey = dialect == .openmarket ? "description" : "descriptions"
        for (key, value) in body where key != "secret" {
            switch key {
            case "name", "currency": product.fields[key] = value as? String
            case descriptionKey: product.fields["description"] = value as? String
            case "price", "discounted_price", "stock", "thumbnail_id": product.fields[key] = "\(value)"
            default: throw Failure(status: 400, message: "JSON parse error: Unrecognized field \"\(key)\"")
            }
        }
        if (Double(product.fields["discounted_price"] ?? "") ?? 0) > (Double(product.fields["price"] ?? "") ?? 0) {
            throw Failure(status: 400, message: "discounted_price exceeds price")
        }
        products[id] = product
        return json(productJSON(product))
    }

    private static func bargainPrice(of product: Stored) -> Double {
        (Double(product.fields["price"] ?? "") ?? 0) - (Double(product.fields["discounted_price"] ?? "") ?? 0)
    }

    /// Numbers as the Spring servers send them (`2000.0`), dates without a zone.
    private func productJSON(_ product: Stored) -> [String: Any] {
        var object: [String: Any] = [
            "id": product.id, "vendor_id": 7, "name": product.fields["name"] ?? "",
            "description": product.fields["description"] ?? "",
            "thumbnail": "\(imageHost)/\(product.id)/thumb.jpg", "currency": product.fields["currency"] ?? "",
            "price": Double(product.fields["price"] ?? "") ?? 0, "bargain_price": product.keptBargainPrice ?? Self.bargainPrice(of: product),
            "stock": Double(product.fields["stock"] ?? "") ?? 0, "created_at": createdAtText(product.created.addingTimeInterval(clockOffset)),
            "issued_at": "2022-01-18T00:00:00.00",
            "images": product.images.indices.map {
                ["id": product.id * 10 + $0, "url": "\(imageHost)/\(product.id)/\($0).jpg",
                 "thumbnail_url": "\(imageHost)/\(product.id)/thumb-\($0).jpg", "succeed": true,
                 "issued_at": "2022-01-18T00:00:00.00"] as [String: Any]
            },
        ]
        object["discounted_price"] = Double(product.fields["discounted_price"] ?? "") ?? 0.0
        return object
    }

    /// A list page as the Spring servers send it: snake_case keys on G2, camelCase top-level keys on
    /// G3, newest first. Only G3 searches (`search_value`, part of the name, any case).
    private func listJSON(_ query: [String: String]) -> FlyingFox.HTTPResponse {
        let page = max(1, Int(query["page_no"] ?? "") ?? 1), perPage = max(1, Int(query["items_per_page"] ?? "") ?? 20)
        let search = dialect == .openmarket ? query["search_value"] : nil
        let matching = products.values.filter { search == nil || ($0.fields["name"] ?? "").localizedCaseInsensitiveContains(search!) }
        let pages = newestFirst(matching, page: page, perPage: perPage)
        let hasNext = page * perPage < matching.count
        let camel = dialect == .openmarket
        return json([camel ? "pageNo" : "page_no": page, camel ? "itemsPerPage" : "items_per_page": perPage,
                     camel ? "totalCount" : "total_count": matching.count, camel ? "hasNext" : "has_next": hasNext,
                     camel ? "hasPrev" : "has_prev": page > 1, "pages": pages.map(productJSON).map(listed)])
    }

    /// A product as a list page shows it: whole, or with `listsSummaries` as the real servers' pages
    /// (no description, no images: a thumbnail only).
    private func listed(_ product: [String: Any]) -> [String: Any] {
        listsSummaries ? product.filter { !["description", "descriptions", "images"].contains($0.key) } : product
    }

    /// List pages without descriptions and images, as the real servers send them.
    public func listSummaries() { listsSummaries = true }

    private func newestFirst(_ listed: [Stored]? = nil, page: Int, perPage: Int) -> [Stored] {
        let sorted = (listed ?? Array(products.values)).sorted { $0.id > $1.id }
        return Array(sorted.dropFirst((page - 1) * perPage).prefix(perPage))
    }


    // MARK: Rules shared by the dialects

    private func textFields(_ parts: [Part], allowed: Set<String>) throws -> [String: String] {
        var fields: [String: String] = [:]
        for part in parts where part.filename == nil {
            guard let name = part.name, allowed.contains(name) else { throw Failure(status: 400, message: "unexpected field \(part.name ?? "")") }
            fields[name] = String(decoding: part.body, as: UTF8.self)
        }
        return fields
    }

    private func checkedImages(_ parts: [Part], partName: String, required: Bool) throws -> [(filename: String, contentType: String, data: Data)] {
        let images = parts.filter { $0.filename != nil }
        if let wrong = images.first(where: { $0.name != partName }) {
            throw Failure(status: 400, message: "image part named \(wrong.name ?? "") instead of \(partName)")
        }
        if images.count > 5 { throw Failure(status: 400, message: "The number of images must be 5 or less") }
        if required && images.isEmpty { throw Failure(status: 400, message: "at least one image is required") }
        return try images.map { part in
            let filename = part.filename ?? ""
            let ext = (filename as NSString).pathExtension.lowercased()
            guard ["jpg", "jpeg", "png"].contains(ext) else { throw Failure(status: 400, message: "\(filename): extension must be jpg, jpeg or png") }
            let type = part.headers["content-type"] ?? ""
            guard type == (ext == "png" ? "image/png" : "image/jpeg") else {
                throw Failure(status: 400, message: "\(filename): content type \(type) does not match")
            }
            guard part.body.count <= 300_000 else { throw Failure(status: 413, message: "\(filename) is over 300KB") }
            return (filename, type, part.body)
        }
    }

    private func productID(_ text: String) throws -> Int {
        guard let id = Int(text) else { throw Failure(status: 400, message: "product id must be a number") }
        return id
    }

    private func stored(_ id: Int) throws -> Stored {
        guard let product = products[id] else { throw Failure(status: 404, message: "product \(id) not found") }
        return product
    }

    private func allocateID() -> Int {
        nextID += 1
        return nextID
    }

    private func json(_ object: [String: Any]) -> FlyingFox.HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return FlyingFox.HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders([.contentType: "application/json",
                                                                                       .date: HTTPDate.format(Date().addingTimeInterval(clockOffset))]),
                                      body: data)
    }

    private func error(_ status: Int, _ message: String) -> FlyingFox.HTTPResponse {
        let object: [String: Any] = dialect == .items ? ["error": true, "reason": message] : ["code": status, "message": message]
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Error"), headers: FlyingFox.HTTPHeaders([.contentType: "application/json"]), body: data)
    }

    private func respond(_ status: Int, _ text: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Error"), body: Data(text.utf8))
    }

    // MARK: Multipart, parsed independently of the uploader

    /// Splits a body with multipart-kit's parser. The boundary must come after `boundary=` in the
    /// Content-Type header, as RFC 2046 requires; a header without it is refused like the real servers did.
    public static func parseMultipart(_ body: Data, contentType: String) throws -> [Part] {
        guard let range = contentType.range(of: "boundary=") else {
            throw Failure(status: 400, message: "Content-Type has no boundary= parameter")
        }
        var boundary = String(contentType[range.upperBound...])
        if let end = boundary.firstIndex(of: ";") { boundary = String(boundary[..<end]) }
        boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))

        var parts: [Part] = []
        var headers: [String: String] = [:]
        var current = Data()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers[name.lowercased()] = value }
        parser.onBody = { buffer in current.append(contentsOf: buffer.readableBytesView) }
        parser.onPartComplete = {
            let disposition = headers["content-disposition"] ?? ""
            parts.append(Part(headers: headers, name: Self.parameter("name", in: disposition),
                              filename: Self.parameter("filename", in: disposition), body: current))
            headers = [:]
            current = Data()
        }
        do {
            try parser.execute([UInt8](body))
        } catch {
            throw Failure(status: 400, message: "Header section has more than 10240 bytes (maybe it is not properly terminated): \(error)")
        }
        guard body.suffix(boundary.count + 6) == Data("--\(boundary)--\r\n".utf8) || body.hasSuffix(Data("--\(boundary)--".utf8)) else {
            throw Failure(status: 400, message: "the body does not end with the closing delimiter --\(boundary)--")
        }
        return parts
    }

    /// A quoted parameter of a Content-Disposition value, taken literally up to the closing quote.
    public static func parameter(_ key: String, in disposition: String) -> String? {
        guard let start = disposition.range(of: "; \(key)=\"") else { return nil }
        let rest = disposition[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}

private extension Data {
    func hasSuffix(_ suffix: Data) -> Bool { count >= suffix.count && self.suffix(suffix.count) == suffix }
}

extension OpenMarketTestServer {
    /// A G3 product page holding a good product, two items whose ids are no product ids (1.5 and
    /// 2^63 − 1), and products whose names are not valid Unicode as sent: a byte that is not UTF-8
    /// (`Mug \xFF`), a lone surrogate (`\ud800`), a raw control byte; and one with a right-to-left
    /// override.
    public static let pageWithBadItems: Data = {
        func item(_ id: String, _ name: String) -> String {
            #"{"id":\#(id),"vendor_id":7,"name":"\#(name)","price":1000,"currency":"KRW","stock":3,"images":[]}"#
        }
        let items = [item("1", "Good mug"), item("1.5", "Half"), item("9223372036854775807", "Huge"), item("4", "Mug NOT-UTF-8"),
                     item("5", #"Mug \ud800 blue"#), item("6", "MugCONTROLblue"), item("7", "abc\u{202E}dcba")]
        var data = Data((#"{"page_no":1,"items_per_page":20,"total_count":7,"has_next":false,"pages":["# + items.joined(separator: ",") + "]}").utf8)
        for (marker, byte) in [("NOT-UTF-8", UInt8(0xFF)), ("CONTROL", 0x01)] {
            if let range = data.range(of: Data(marker.utf8)) { data.replaceSubrange(range, with: [byte]) }
        }
        return data
    }()
}

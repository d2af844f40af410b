import Foundation

/// A product as any of the three servers returns it, decoded leniently: numbers as `2000` or
/// `2000.0` (or strings), dates in several formats or as Unix seconds, G1's `title`/`descriptions`
/// and image URL lists, G2/G3's image objects.
public struct ProductResponse: Sendable, Equatable, Codable {
    public struct Image: Sendable, Equatable, Codable {
        public var id: Int?
        public var url: String
        public var thumbnailURL: String?
    }

    public var id: Int
    public var name: String
    public var description: String?
    public var price: Double?
    public var discountedPrice: Double?
    /// G2/G3: the price after the discount, as the server computed it.
    public var bargainPrice: Double?
    public var currency: String?
    public var stock: Int?
    public var thumbnail: String?
    public var images: [Image]
    public var createdAt: Date?
    public var vendorID: Int?
    /// The fields whose text was not valid Unicode as sent (a byte that is not UTF-8, a raw control
    /// byte, a lone surrogate), now shown as it was sent, each with what was found: `name (\xFF)`.
    public var notUnicode: [String] = []

    private enum Keys: String, CodingKey {
        case id, name, title, description, descriptions, price, currency, stock, thumbnail, thumbnails, images
        case discountedPrice = "discounted_price", bargainPrice = "bargain_price", createdAt = "created_at", registrationDate = "registration_date"
        case vendorID = "vendor_id", url, thumbnailURL = "thumbnail_url"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        guard let id = Self.int(c, .id) else {
            let given = (try? c.decode(Decimal.self, forKey: .id)).map { "\($0)" } ?? (try? c.decode(String.self, forKey: .id))
            let context = DecodingError.Context(codingPath: c.codingPath + [Keys.id], debugDescription: given.map {
                "id \(ServerText.printable(String($0.prefix(40)))) is not a product id (a whole number of at most 15 digits)"
            } ?? "no product id")
            throw DecodingError.dataCorrupted(context)
        }
        self.id = id
        let named = ServerText.escapingInvalidText((try? c.decode(String.self, forKey: .name)) ?? (try? c.decode(String.self, forKey: .title)) ?? "")
        let described = ((try? c.decode(String.self, forKey: .description)) ?? (try? c.decode(String.self, forKey: .descriptions))).map(ServerText.escapingInvalidText)
        (self.name, description) = (named.text, described?.text)
        notUnicode = [("name", named.found), ("description", described?.found ?? [])].filter { !$0.1.isEmpty }
            .map { "\($0.0) (\($0.1.prefix(3).joined(separator: ", ")))" }
        price = Self.double(c, .price)
        discountedPrice = Self.double(c, .discountedPrice)
        bargainPrice = Self.double(c, .bargainPrice)
        currency = try? c.decode(String.self, forKey: .currency)
        stock = Self.int(c, .stock)
        vendorID = Self.int(c, .vendorID)
        let urls = (try? c.decode([String].self, forKey: .images)) ?? []
        if !urls.isEmpty {
            images = urls.map { Image(id: nil, url: $0, thumbnailURL: nil) }
        } else if var list = try? c.nestedUnkeyedContainer(forKey: .images) {
            var decoded: [Image] = []
            while !list.isAtEnd {
                let image = try list.nestedContainer(keyedBy: Keys.self)
                decoded.append(Image(id: Self.int(image, .id), url: (try? image.decode(String.self, forKey: .url)) ?? "",
                                     thumbnailURL: try? image.decode(String.self, forKey: .thumbnailURL)))
            }
            images = decoded
        } else {
            images = []
        }
        thumbnail = (try? c.decode(String.self, forKey: .thumbnail)) ?? (try? c.decode([String].self, forKey: .thumbnails))?.first
        if let seconds = Self.double(c, .registrationDate) {
            createdAt = Date(timeIntervalSince1970: seconds)
        } else {
            createdAt = (try? c.decode(String.self, forKey: .createdAt)).flatMap(Self.date)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encodeIfPresent(price, forKey: .price)
        try c.encodeIfPresent(discountedPrice, forKey: .discountedPrice)
        try c.encodeIfPresent(bargainPrice, forKey: .bargainPrice)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(stock, forKey: .stock)
        try c.encodeIfPresent(thumbnail, forKey: .thumbnail)
        try c.encode(images, forKey: .images)
        try c.encodeIfPresent(createdAt.map { ISO8601DateFormatter().string(from: $0) }, forKey: .createdAt)
        try c.encodeIfPresent(vendorID, forKey: .vendorID)
    }

    private static func double(_ c: KeyedDecodingContainer<Keys>, _ key: Keys) -> Double? {
        (try? c.decode(Double.self, forKey: key)) ?? (try? c.decode(String.self, forKey: key)).flatMap(Double.init)
    }

    private static func int(_ c: KeyedDecodingContainer<Keys>, _ key: Keys) -> Int? {
        double(c, key).flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
    }

    /// ISO 8601 with or without fractional seconds and zone, as the servers sent them over the years.
    static func date(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss.SS",
                       "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

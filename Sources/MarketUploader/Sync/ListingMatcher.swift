import Foundation

/// Finds the listing an unanswered register may have created, among what the server lists under its
/// name. A listing matches on what was sent: price, sale price, stock, currency, description, the
/// vendor and the photo count, wherever the server shows them. Time is only a hint: servers write
/// `created_at` in their own zone, often without saying which, and their clocks drift, so a matching
/// listing is adopted whatever its time; only between several matches does the time choose, and only
/// when exactly one was created after the request left (on the server's clock, give or take
/// `clockSkew`). Ids already recorded are never candidates, and more than one candidate is never
/// guessed between: adopting the wrong twin would edit or delete someone else's listing.
public struct ListingMatcher: Sendable {
    public var sent: ListingSnapshot
    public var dialect: Dialect
    public var sentAt: Date
    public var vendorID: Int?
    /// Ids already recorded for other folders (or replaced by this one).
    public var excluded: Set<Int>
    /// How far apart the clocks may be after the server's `Date` correction.
    public var clockSkew: TimeInterval = 600

    public init(sent: ListingSnapshot, dialect: Dialect, sentAt: Date, vendorID: Int? = nil, excluded: Set<Int> = []) {
        self.sent = sent
        self.dialect = dialect
        self.sentAt = sentAt
        self.vendorID = vendorID
        self.excluded = excluded
    }

    /// What the server's list says about one unanswered register.
    public struct Result: Sendable {
        /// The listings that hold what was sent.
        public var matches: [ProductResponse]
        /// The one to adopt: the only match, or the only one of several created after the request.
        public var chosen: ProductResponse?
        /// Listings with the name that differ in another field, and how, for telling the seller.
        public var nearMisses: [(listing: ProductResponse, differences: [FieldChange])]
    }

    /// Compares `listings` with what was sent; `serverClockOffset` is how far the server's clock is
    /// ahead of ours (its `Date` header minus our time), nil when it did not say.
    public func match(_ listings: [ProductResponse], serverClockOffset: TimeInterval? = nil) -> Result {
        var seen = Set<Int>()
        let named = listings.filter { seen.insert($0.id).inserted && !excluded.contains($0.id) && $0.name == sent.fields.name }
        let compared = named.map { ($0, differences($0)) }
        let matches = compared.filter(\.1.isEmpty).map(\.0)
        let leftAt = sentAt.addingTimeInterval((serverClockOffset ?? 0) - clockSkew)
        let recent = matches.filter { $0.createdAt.map { $0 >= leftAt } ?? false }
        return Result(matches: matches, chosen: matches.count == 1 ? matches[0] : recent.count == 1 ? recent[0] : nil,
                      nearMisses: compared.filter { !$0.1.isEmpty }.map { (listing: $0.0, differences: $0.1) })
    }

    /// Each field the listing shows that differs from what was sent, as "field: sent → listed".
    public func differences(_ listing: ProductResponse) -> [FieldChange] {
        let fields = sent.fields
        let money = fields.currency.format
        let sale = { (value: Double?) in value.map(money) ?? "none" }
        var differences: [FieldChange] = []
        func compare(_ field: String, _ ours: String, _ theirs: String?) {
            if let theirs, theirs != ours { differences.append(FieldChange(field: field, from: ours, to: theirs)) }
        }
        compare("price", money(fields.price), listing.price.map(money))
        compare("sale_price", sale(SalePrice.effective(price: fields.price, salePrice: fields.salePrice)),
                listing.price == nil ? nil : sale(dialect.salePrice(of: listing)))
        compare("stock", String(fields.stock), listing.stock.map(String.init))
        compare("currency", fields.currency.rawValue, listing.currency)
        compare("description", fields.description, listing.description)
        if let vendorID { compare("vendor", String(vendorID), listing.vendorID.map(String.init)) }
        compare("photos", String(sent.images.count), listing.images.isEmpty ? nil : String(listing.images.count))
        return differences
    }
}

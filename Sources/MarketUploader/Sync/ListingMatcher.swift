import Foundation

/// Finds the listing an unanswered register may have created, among what the server lists. A
/// candidate must have the same name and price (and description and vendor where the server shows
/// them), must not be a listing already accounted for, and must have been created after the request
/// left, give or take the clocks' disagreement. Only a single match may be adopted: two matches mean
/// a listing cannot be told from a twin, and guessing could delete or edit the wrong one.
public struct ListingMatcher: Sendable {
    public var fields: ProductDraft
    public var sentAt: Date
    public var vendorID: Int?
    /// Ids already recorded for other folders (or replaced by this one).
    public var excluded: Set<Int>
    /// How far the server's clock may be behind ours.
    public var clockSkew: TimeInterval = 600

    public init(fields: ProductDraft, sentAt: Date, vendorID: Int? = nil, excluded: Set<Int> = []) {
        self.fields = fields
        self.sentAt = sentAt
        self.vendorID = vendorID
        self.excluded = excluded
    }

    public func matches(_ listings: [ProductResponse]) -> [ProductResponse] {
        var seen = Set<Int>()
        return listings.filter { listing in
            guard seen.insert(listing.id).inserted, !excluded.contains(listing.id), listing.name == fields.name else { return false }
            if let price = listing.price, price != fields.price { return false }
            if let description = listing.description, description != fields.description { return false }
            if let vendorID, let theirs = listing.vendorID, theirs != vendorID { return false }
            if let created = listing.createdAt, created < sentAt.addingTimeInterval(-clockSkew) { return false }
            return true
        }
    }
}

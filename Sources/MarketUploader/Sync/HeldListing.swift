import Foundation

/// What a server holds for a listing, in the terms a product folder is compared in: the fields as
/// the server shows them (a buyer's price, whatever the dialect calls it) and the photos. A server
/// shows its images as URLs, never as the bytes' fingerprints, so the photos count as the ones last
/// sent while the server shows as many; a different count means they were changed on the server,
/// and then nothing the folder holds can equal them.
public struct HeldListing: Sendable, Equatable {
    public var snapshot: ListingSnapshot
    /// "1 photo on the server, 2 sent": set when the server's photos are not the ones sent.
    public var photoDifference: String?

    /// `listing` as the server holds it; `sent` gives what the server does not show.
    public init(_ listing: ProductResponse, sent: ListingSnapshot, dialect: Dialect) {
        snapshot = ListingSnapshot(fields: Self.fields(of: listing, over: sent.fields, dialect: dialect), images: sent.images)
        let shown = listing.images
        if !shown.isEmpty, shown.count != sent.images.count {
            snapshot.images = shown.map { "on the server: " + $0.url }
            photoDifference = NumberText.count(shown.count, "photo") + " on the server, \(sent.images.count) sent"
        }
    }

    /// The fields `listing` shows, and `base`'s for those it does not: what a seller would read on the
    /// listing, the sale price as a buyer pays it.
    public static func fields(of listing: ProductResponse, over base: ProductDraft, dialect: Dialect) -> ProductDraft {
        var fields = base
        fields.name = listing.name
        fields.description = listing.description ?? fields.description
        fields.price = listing.price ?? fields.price
        fields.currency = listing.currency.flatMap(Currency.init(rawValue:)) ?? fields.currency
        fields.stock = listing.stock ?? fields.stock
        fields.salePrice = listing.price == nil ? fields.salePrice : dialect.salePrice(of: listing)
        return fields
    }
}

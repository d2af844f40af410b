import Foundation

/// What it takes to bring one listing in line with its product folder. Deciding is pure: the same
/// folder, record and dialect always give the same action, so a dry run shows exactly what a real
/// run will do.
public enum SyncAction: Sendable, Equatable {
    /// Nothing was ever accepted for this folder.
    case register
    case unchanged
    /// Fields changed: a PATCH with only those fields.
    case edit(ProductChange)
    /// The photos changed on a server whose PATCH carries images (G1): the new set, with any changed
    /// fields, in one PATCH.
    case replaceImages(ProductChange)
    /// The photos changed where images are fixed at registration (G2/G3), and replacing the listing
    /// was allowed: register the new version, then delete `replacing`, so there is never no listing.
    case recreate(replacing: Int)
    /// The photos changed where images are fixed at registration, and replacing was not allowed.
    case imagesCannotChange(productID: Int)

    /// The action for a folder whose content is `current`, given what was last accepted for it.
    public static func plan(current: ListingSnapshot, sent: ListingSnapshot?, productID: Int?,
                            dialect: Dialect, allowRecreate: Bool) -> SyncAction {
        guard let sent, let productID else { return .register }
        let change = ProductChange(from: sent, to: current.fields)
        if sent.images == current.images { return change.isEmpty ? .unchanged : .edit(change) }
        if dialect.canChangeImages { return .replaceImages(change) }
        return allowRecreate ? .recreate(replacing: productID) : .imagesCannotChange(productID: productID)
    }
}

import Foundation
import MarketUploader

/// The one rule of what a product folder needs on a server, given what the server holds for it (or,
/// when the server was not read, what the publish record says was sent): register, edit, replace its
/// photos, recreate it, or nothing. `PublishRun` plans with it (after reading the server and looking
/// up unanswered registers) and `preview` shows it, so the two cannot disagree.
public enum PublishPlanner {
    /// The steps for folder `name`, now holding `snapshot` (its fields and prepared `images`), against
    /// what the server `held` for its listing, or its record `entry` when the server was not read (a
    /// dry run; a listing registered a moment ago). A pending entry is `.pending` here: looking it up
    /// is the run's.
    public static func steps(folder name: String, entry: PublishLedger.Entry?, snapshot: ListingSnapshot, images: [UploadImage],
                             dialect: Dialect, allowRecreate: Bool, held: HeldListing? = nil) -> [PublishStep] {
        if let entry, entry.state == .pending {
            return [PublishStep(folder: name, action: .pending, productID: entry.productID,
                                detail: "a register was never answered: publish looks it up first")]
        }
        var steps: [PublishStep] = []
        let registering = registerDetail(snapshot.fields, images: images)
        guard let entry else {
            return [warned(PublishStep(folder: name, action: .register, detail: registering, payload: .init(snapshot: snapshot, images: images)), snapshot)]
        }
        if let replaced = entry.replaces {
            steps.append(PublishStep(folder: name, action: .deleteReplaced, productID: replaced,
                                     detail: "replaced by product \(entry.productID.map(String.init) ?? "?"): delete it"))
        }
        let payload = PublishStep.Payload(snapshot: snapshot, images: images)
        guard let recorded = entry.sent else {
            steps.append(PublishStep(folder: name, action: .unchanged, productID: entry.productID,
                                     detail: "published by an older version: record what the folder holds now", payload: payload))
            return steps
        }
        // The server is the truth where it was read; the record only says what was sent.
        let compared = held?.snapshot ?? recorded
        let changes = compared.changes(to: snapshot.fields)
        let changed = changes.map(\.field).joined(separator: ", ")
        let photos = held?.photoDifference.map { "photos differ (\($0), \(images.count) in the folder)" } ?? "photos changed"
        var step = PublishStep(folder: name, action: .unchanged, productID: entry.productID, detail: "", changes: changes, payload: payload)
        switch SyncAction.plan(current: snapshot, sent: compared, productID: entry.productID, dialect: dialect, allowRecreate: allowRecreate) {
        case .register:
            (step.action, step.detail) = (.register, registering)
        case .unchanged where held != nil && recorded != snapshot:
            // The server holds the folder's, the record something else (an edit whose answer was
            // lost): the record is brought in line, or a dry run would plan that edit for ever.
            step.detail = "the server holds what the folder does: the record is brought in line"
        case .unchanged:
            step.payload = nil
        case .edit(let change):
            let describe = { (change: FieldChange) in
                held == nil ? "\(change.field) \(change.from) → \(change.to)" : "\(change.field) \(change.from) on the server, \(change.to) in product.json"
            }
            (step.action, step.detail) = (.edit, changes.map(describe).joined(separator: "; "))
            step.payload?.change = change
        case .replaceImages(let change):
            (step.action, step.detail) = (.replaceImages, photos + (changed.isEmpty ? "" : "; also \(changed)") + ": send the folder's set")
            step.payload?.change = change
        case .recreate(let old):
            (step.action, step.detail) = (.recreate, "\(photos): register the new version, then delete product \(old)")
        case .imagesCannotChange(let id):
            (step.action, step.detail) = (.blocked, "\(photos), and the \(dialect.rawValue) server cannot change a product's images: "
                + "--recreate registers the new version, then deletes product \(id)")
            step.payload = nil
        }
        steps.append(warned(step, snapshot))
        return steps
    }

    /// "3 photos at ₩10,800 (was ₩12,000)": a new listing shows what a buyer will pay.
    private static func registerDetail(_ fields: ProductDraft, images: [UploadImage]) -> String {
        NumberText.count(images.count, "photo") + " at " + SalePrice.text(price: fields.price, salePrice: fields.salePrice, currency: fields.currency)
    }

    /// The fields' warnings on a step that sends the prices.
    private static func warned(_ step: PublishStep, _ snapshot: ListingSnapshot) -> PublishStep {
        var step = step
        let sendsPrices = [.register, .recreate].contains(step.action) || step.changes.contains { ["price", "sale_price"].contains($0.field) }
        if sendsPrices { step.warnings = snapshot.fields.warnings }
        return step
    }
}

import Foundation
import ImagePipeline
import MarketUploader
import Publishing

/// The products folder as the preview shows it. Every look prepares what is missing or changed
/// (incrementally, into the same cache `publish` uses) so the page follows the folder; one look at a
/// time, because two runs into one cache folder would refuse each other.
final class PreviewCatalogue: @unchecked Sendable {
    let configuration: PreviewConfiguration
    var productsFolder: String { configuration.productsFolder }
    private var server: URL? { configuration.server }
    private var dialect: Dialect? { configuration.dialect }
    private let lock = NSLock()

    /// One product folder: its fields (or why they are unusable), its photos, and its publish state.
    struct Product {
        var folder: String
        var name: String { (folder as NSString).lastPathComponent }
        var fields: ProductChange?
        /// What blocks publishing, but for failed photos (shown with the photos).
        var problems: [String] = []
        /// What is worth a look: files not read, subfolders, a deep sale.
        var warnings: [String] = []
        var prepared: PreparedPhotos?
        var publish: PublishState?
    }

    /// Where a product stands against the publish record.
    struct PublishState {
        var summary: String
        var changes: [FieldChange] = []
        /// `new`, `unchanged`, `changed`, `pending` or `unknown`, for styling.
        var kind: String
    }

    init(_ configuration: PreviewConfiguration) {
        self.configuration = configuration
    }

    /// The products folder as it is now: its product folders and its warnings (photos in
    /// subfolders, no photos).
    var scan: ProductScanner.Scan { ProductScanner().scan([productsFolder]) }

    /// The product folders' paths, in name order.
    var folders: [String] { scan.productFolders(under: productsFolder) }

    /// Every product, prepared as needed, and the folder's scan warnings, from one scan. A photo
    /// that looks like an earlier product's is named on its product.
    func products() -> (products: [Product], warnings: [String]) {
        let scan = self.scan, ledger = self.ledger
        return (lock.withLock { loadAll(scan.productFolders(under: productsFolder), ledger: ledger) }, scan.warnings)
    }

    func product(named name: String) -> Product? {
        let ledger = self.ledger
        return lock.withLock {
            let folders = self.folders
            guard let index = folders.firstIndex(where: { ($0 as NSString).lastPathComponent == name }) else { return nil }
            return loadAll(Array(folders[...index]), ledger: ledger).last
        }
    }

    private func loadAll(_ folders: [String], ledger: Result<PublishLedger, any Error>?) -> [Product] {
        var seen = PhotoDuplicates()
        return folders.map { folder in
            var (product, check) = load(folder, ledger: ledger)
            product.warnings += check.lookalikes(after: &seen, as: product.name)
            return product
        }
    }

    /// The publish record, read once per look; nil when there is no server to compare with.
    private var ledger: Result<PublishLedger, any Error>? {
        server.map { _ in Result { try PublishLedger.load(from: productsFolder) } }
    }

    private func load(_ folder: String, ledger: Result<PublishLedger, any Error>?) -> (Product, ProductCheck) {
        let check = ProductCheck(folder: folder, photos: configuration.photoCache, dialect: dialect ?? .openmarket,
                                 describe: configuration.describe)
        var product = Product(folder: folder, fields: check.fields, problems: check.fieldProblems + check.shapeProblems + check.photoProblems,
                              warnings: check.warnings, prepared: check.prepared)
        product.publish = ledger.flatMap { publishState(folder: folder, check: check, ledger: $0) }
        return (product, check)
    }

    /// What publish would do with the folder; a folder with problems is still new, or published as
    /// its record says.
    private func publishState(folder: String, check: ProductCheck, ledger record: Result<PublishLedger, any Error>) -> PublishState? {
        guard let server else { return nil }
        let ledger: PublishLedger
        do { ledger = try record.get() } catch { return PublishState(summary: configuration.describe(error), kind: "unknown") }
        let shown = PublishLedger.identity(of: server)
        guard let entry = ledger.entries[PublishLedger.key(server: server, folder: folder)] else {
            return PublishState(summary: "new: not yet published to \(shown)", kind: "new")
        }
        let id = entry.productID.map { "product \($0)" } ?? "a product"
        guard check.problems.isEmpty, let draft = check.draft else {
            return PublishState(summary: "published as \(id); fix what is listed before publish can compare", kind: "unknown")
        }
        // What publish would do, from the same planner publish runs (pending registers are looked up
        // by publish itself, which needs the server).
        let steps = PublishPlanner.steps(folder: (folder as NSString).lastPathComponent, entry: entry,
                                         snapshot: ListingSnapshot(fields: draft, uploads: check.images), images: check.images,
                                         dialect: dialect ?? .openmarket, allowRecreate: false)
        guard let step = steps.last else { return nil }
        switch step.action {
        case .pending:
            return PublishState(summary: "pending: a register was never answered; publish looks it up first", kind: "pending")
        case .unchanged where step.payload != nil:
            return PublishState(summary: "published as \(id); publish records what it holds on its next run", kind: "unchanged")
        case .edit:
            return PublishState(summary: "changes to send to \(id)", changes: step.changes, kind: "changed")
        case .replaceImages, .recreate, .blocked:
            let how = dialect == .items ? "publish replaces them" : dialect == nil ? "publish replaces them (items server) or needs --recreate" : "publish needs --recreate"
            return PublishState(summary: "photos changed since \(id) was published: \(how)", changes: step.changes, kind: "changed")
        case .unchanged, .register, .adopt, .orphaned, .deleteReplaced, .deleteOrphan:
            return PublishState(summary: "unchanged: published as \(id)", kind: "unchanged")
        }
    }
}

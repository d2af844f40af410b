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
    /// Blocks while the server is read (`readingServer`): call it off the threads tasks share, as the
    /// routes do.
    func products(readingServer: Bool = true) -> (products: [Product], warnings: [String]) {
        let scan = self.scan, ledger = self.ledger
        let held = readingServer ? readServer(ledger) : nil
        return (lock.withLock { loadAll(scan.productFolders(under: productsFolder), ledger: ledger, held: held) }, scan.warnings)
    }

    /// Blocks while the server is read: call it off the threads tasks share, as the routes do.
    func product(named name: String) -> Product? {
        let ledger = self.ledger
        let held = readServer(ledger)
        return lock.withLock {
            let folders = self.folders
            guard let index = folders.firstIndex(where: { ($0 as NSString).lastPathComponent == name }) else { return nil }
            return loadAll(Array(folders[...index]), ledger: ledger, held: held).last
        }
    }

    private func loadAll(_ folders: [String], ledger: Result<PublishLedger, any Error>?, held: Result<ServerListings, PublishingError>?) -> [Product] {
        var seen = PhotoDuplicates()
        return folders.map { folder in
            var (product, check) = load(folder, ledger: ledger, held: held)
            product.warnings += check.lookalikes(after: &seen, as: product.name)
            return product
        }
    }

    /// What the server holds for the products the record names (`ServerListings`, as `publish` reads
    /// it), once per look; nil without a client or a readable record. The preview's pages are built on
    /// threads of their own, so this one waits for the read.
    private func readServer(_ ledger: Result<PublishLedger, any Error>?) -> Result<ServerListings, PublishingError>? {
        guard let client = configuration.client, let server, let recorded = try? ledger?.get() else { return nil }
        let ids = Set(recorded.entries(on: server).compactMap { $0.entry.state == .registered ? $0.entry.productID : nil })
        let answer = ServerAnswer()
        Task {
            do throws(PublishingError) { answer.result = .success(try await ServerListings.read(ids, from: client)) } catch { answer.result = .failure(error) }
            answer.done.signal()
        }
        answer.done.wait()
        return answer.result
    }

    /// The publish record, read once per look; nil when there is no server to compare with.
    private var ledger: Result<PublishLedger, any Error>? {
        server.map { _ in Result { try PublishLedger.load(from: productsFolder) } }
    }

    private func load(_ folder: String, ledger: Result<PublishLedger, any Error>?, held: Result<ServerListings, PublishingError>?) -> (Product, ProductCheck) {
        let check = ProductCheck(folder: folder, photos: configuration.photoCache, dialect: dialect ?? .openmarket,
                                 describe: configuration.describe)
        var product = Product(folder: folder, fields: check.fields, problems: check.fieldProblems + check.shapeProblems + check.photoProblems,
                              warnings: check.warnings, prepared: check.prepared)
        product.publish = ledger.flatMap { publishState(folder: folder, check: check, ledger: $0, held: held) }
        return (product, check)
    }

    /// What publish would do with the folder; a folder with problems is still new, or published as
    /// its record says.
    private func publishState(folder: String, check: ProductCheck, ledger record: Result<PublishLedger, any Error>,
                              held: Result<ServerListings, PublishingError>?) -> PublishState? {
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
        var listing: HeldListing?
        if let held, entry.state == .registered, let productID = entry.productID {
            let read: ServerListings
            do { read = try held.get() } catch { return PublishState(summary: configuration.describe(error), kind: "unknown") }
            if read.gone.contains(productID) {
                return PublishState(summary: "\(id) is gone from the server: publish registers it again", kind: "new")
            }
            listing = read.listings[productID].flatMap { found in entry.sent.map { HeldListing(found, sent: $0, dialect: dialect ?? .openmarket) } }
        }
        // What publish would do, from the same planner publish runs, against what the server holds
        // when it was read (pending registers are looked up by publish itself).
        let steps = PublishPlanner.steps(folder: (folder as NSString).lastPathComponent, entry: entry,
                                         snapshot: ListingSnapshot(fields: draft, uploads: check.images), images: check.images,
                                         dialect: dialect ?? .openmarket, allowRecreate: false, held: listing)
        guard let step = steps.last else { return nil }
        switch step.action {
        case .pending:
            return PublishState(summary: "pending: a register was never answered; publish looks it up first", kind: "pending")
        case .unchanged where step.payload != nil:
            return PublishState(summary: "published as \(id); publish records what it holds on its next run", kind: "unchanged")
        case .edit:
            return PublishState(summary: listing == nil ? "changes to send to \(id)" : "\(id) differs on the server: " + step.detail,
                                changes: step.changes, kind: "changed")
        case .replaceImages, .recreate, .blocked:
            let how = dialect == .items ? "publish replaces them" : dialect == nil ? "publish replaces them (items server) or needs --recreate" : "publish needs --recreate"
            return PublishState(summary: "photos changed since \(id) was published: \(how)", changes: step.changes, kind: "changed")
        case .unchanged, .register, .adopt, .rename, .orphaned, .deleteReplaced, .deleteOrphan:
            return PublishState(summary: "unchanged: published as \(id)" + (listing == nil ? "" : ", as the server holds it"), kind: "unchanged")
        }
    }
}

/// The answer of a server read a page waits for.
private final class ServerAnswer: @unchecked Sendable {
    var result: Result<ServerListings, PublishingError>?
    let done = DispatchSemaphore(value: 0)
}

import ArgumentParser
import Foundation
import ImagePipeline
import MarketUploader
import Publishing

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring the server in line with a folder of product folders: plan, then apply.",
        discussion: """
        Each subfolder of PRODUCTS with photos is one product; its product.json gives the fields. What \
        the server accepted for each folder (the product id, the fields, a fingerprint of each prepared \
        photo) is recorded in PRODUCTS/.openmarket-published.json (register, edit, attach and delete \
        keep it too). Every run first reads what the server holds for the recorded products (a list \
        page at a time, at most one request per product), compares each folder with that and plans one \
        step per product: register (a new folder, or a listing deleted on the server), edit (only the \
        fields that differ from the server), replace-images (the photos differ; items server), rename \
        (a folder renamed or moved, told by its photos or product.json), unchanged, or blocked with the \
        reason. A new folder whose name, price and photos a listing already holds is adopted, not \
        registered again. The market-training and openmarket servers cannot change a product's images: with \
        --recreate, the new version is registered first and the old one deleted after, so the product \
        is never missing. Listings whose folder is gone are reported as orphaned; --delete-orphans \
        deletes them, after asking on a terminal (--yes for scripts).

        Photos that look blurry, too dark or blown out, and photos that look like another (in the \
        product or in another product), are warnings; --strict blocks the first kind.

        A register that was sent but never answered (a crash, a dropped connection) is looked up on \
        the server by what it carried (name, prices, stock, description, vendor, photo count) and \
        adopted when one listing matches; it is never sent again unless you pass --resend-pending \
        after it was looked up and not found. A listing you can see on the server is recorded for a \
        folder with --adopt FOLDER=ID. --dry-run prints the plan and sends nothing at all.

        Exit status: 0 when the server matches the folders, 1 when a step failed, was blocked or is \
        still pending.

        EXAMPLES:
          market-images publish products/ --dry-run
          market-images publish products/
          market-images publish products/ --recreate --delete-orphans --yes
          market-images publish products/ --adopt mug=1234
        """
    )

    @Argument(help: "A folder of product folders.")
    var products: String

    @Flag(help: "Where images cannot change (G2/G3): register the new version, then delete the old listing.")
    var recreate = false

    @Flag(help: "Delete listings whose product folder is gone.")
    var deleteOrphans = false

    @Flag(help: "Delete without asking (for scripts).")
    var yes = false

    @Flag(help: "Register again a product whose unanswered register was looked up and not found (lists it twice if it is listed later).")
    var resendPending = false

    @Option(name: .customLong("adopt"), help: ArgumentHelp("Record listing ID as product folder FOLDER's (repeatable): the next steps edit what differs.",
                                                             valueName: "FOLDER=ID"))
    var adoptions: [FolderListing] = []

    @Flag(help: "List photos that break the shape rules (too small, or beyond 3:1) instead of blocking their product.")
    var allowSmall = false

    @Flag(help: "Block products whose photos look blurry, too dark or blown out, instead of warning.")
    var strict = false

    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        let server = try connection.baseURL
        let folder = ProductsFolder(products)
        // Each product's own are named with its step; these are the products folder's.
        for warning in folder.warnings { Terminal.standardError.warning(warning) }
        guard !folder.productFolders.isEmpty else { throw ValidationError("\(products) has no product folders with photos") }
        let lock = connection.dryRun ? nil : try PublishLedger.lock(products)
        defer { withExtendedLifetime(lock) {} }
        var run = try PublishRun(productsFolder: products, server: server, client: try connection.client(),
                                 credentials: try connection.credentials, photos: photos.photoCache)
        run.allowRecreate = recreate
        run.resendPending = resendPending
        run.adoptions = Dictionary(adoptions.map { ($0.folder, $0.id) }, uniquingKeysWith: { $1 })
        run.deleteOrphans = deleteOrphans
        run.allowOddShapes = allowSmall
        run.strictLooks = strict
        run.dryRun = connection.dryRun
        run.describe = errorText

        // Preparing photos on a cold cache takes seconds: shown on a terminal, as prepare shows it.
        let progress = ProgressDisplay(enabled: !connection.json)
        run.onPhotoEvent = { event in
            switch event {
            case .planned(let pending, _): progress.start(total: pending)
            case .finished(let outcome): progress.advance(failed: outcome.error != nil)
            }
        }
        var steps: [PublishStep]
        do {
            steps = try await run.plan(folders: folder.productFolders)
        } catch PublishingError.noFolderToAdopt(let name, let id) {
            throw ValidationError("--adopt \(name)=\(id): \(products) has no product folder \(name)")
        }
        progress.finish()
        // Failed while planning: already a row of the table, not repeated after it.
        let shown = connection.json ? [] : Set(steps.indices.filter { steps[$0].result == .failed })
        let table = PlanTable(server: server, dialect: try connection.resolvedDialect)
        if !connection.json {
            if let read = run.serverRead { Terminal.standardOutput.write("Read what the server holds: \(read.cost)\n") }
            Terminal.standardOutput.write(table.render(steps))
        }
        for step in steps { for warning in step.warnings { Terminal.standardError.warning("\(Terminal.display(step.folder)): \(warning)") } }
        if !connection.dryRun {
            if steps.contains(where: { $0.action == .deleteOrphan }) && !confirmDeletion(steps) {
                steps = steps.map { step in
                    step.action == .deleteOrphan ? .failed(step.folder, .deleteOrphan, productID: step.productID,
                                                           "not deleted: confirm on a terminal, or pass --yes") : step
                }
            }
            for index in steps.indices {
                steps[index] = await run.apply(steps[index])
                if !connection.json, steps[index].result == .done { Terminal.standardOutput.write(table.outcome(steps[index]) + "\n") }
            }
        }
        for (index, step) in steps.enumerated() where step.result == .failed && !shown.contains(index) {
            Terminal.standardError.error("\(Terminal.display(step.folder)): \(step.error ?? step.detail)")
        }
        if connection.json { try printJSON(steps) } else { Terminal.standardOutput.write(table.summary(steps, dryRun: connection.dryRun) + "\n") }
        if steps.contains(where: \.isUnresolved) { throw ExitCode.failure }
    }

    private func confirmDeletion(_ steps: [PublishStep]) -> Bool {
        if yes { return true }
        let ids = steps.filter { $0.action == .deleteOrphan }.compactMap(\.productID).map(String.init)
        return Confirmation.ask("Delete \(count(ids.count, "listing")) whose folder is gone (\(ids.joined(separator: ", ")))?") ?? false
    }
}

/// `FOLDER=ID`: a product folder's name and the listing the seller says is its.
struct FolderListing: ExpressibleByArgument {
    var folder: String
    var id: Int

    init?(argument: String) {
        guard let equals = argument.lastIndex(of: "="), let id = Int(argument[argument.index(after: equals)...]), id > 0,
              case let folder = String(argument[..<equals]).trimmingCharacters(in: CharacterSet(charactersIn: "/")), !folder.isEmpty else { return nil }
        (self.folder, self.id) = (folder, id)
    }
}

import Foundation
import ImagePipeline
import MarketUploader

/// Brings one server in line with a products folder, for `publish` and `preview` alike: plans a step per folder from what the folder
/// holds and what the ledger says was sent, then applies the steps. The ledger is saved after every
/// request that changed the server, so a crash at any moment leaves it true.
public struct PublishRun: Sendable {
    public let productsFolder: String
    public let server: URL
    public let client: OpenMarketClient
    public let credentials: Credentials
    public let photos: PhotoCache
    public var allowRecreate = false
    public var resendPending = false
    /// Listings the seller names as a folder's (`--adopt FOLDER=ID`), by folder name: recorded as
    /// registered before planning, whatever the record said.
    public var adoptions: [String: Int] = [:]
    public var deleteOrphans = false
    /// List photos that break the shape rules (`PhotoShape`: too small, beyond 3:1) instead of blocking.
    public var allowOddShapes = false
    /// Block products whose photos look blurry, too dark or blown out (`PhotoLook`) instead of warning.
    public var strictLooks = false
    /// Plan only: nothing is sent, not even a lookup, and the ledger is not written.
    public var dryRun = false
    /// Each photo prepared while planning (for a progress display).
    public var onPhotoEvent: @Sendable (FolderEvent) -> Void = { _ in }
    /// How an error is worded in a step: the caller's words (the command line names its flags).
    public var describe: @Sendable (any Error) -> String = { "\($0)" }
    private(set) var ledger: PublishLedger
    /// The photos of the folders planned so far, for naming near-duplicates across products.
    private var seen = PhotoDuplicates()

    public init(productsFolder: String, server: URL, client: OpenMarketClient, credentials: Credentials, photos: PhotoCache) throws {
        self.productsFolder = productsFolder
        self.server = server
        self.client = client
        self.credentials = credentials
        self.photos = photos
        ledger = try PublishLedger.load(from: productsFolder)
    }

    private var dialect: Dialect { client.requests.dialect }

    // MARK: Planning

    /// The steps for `folders` (paths), then one for each listing whose folder is gone. Unanswered
    /// registers are looked up first (except in a dry run), so the plan starts from what is true.
    public mutating func plan(folders: [String]) async throws -> [PublishStep] {
        let present = Set(folders.map { ($0 as NSString).lastPathComponent })
        for (folder, id) in adoptions.sorted(by: { $0.key < $1.key }) where !present.contains(folder) {
            throw PublishingError.noFolderToAdopt(folder: folder, productID: id)
        }
        var steps: [PublishStep] = []
        for folder in folders { steps += try await plan(folder: folder) }
        for (name, entry) in ledger.entries(on: server) where !present.contains(name) {
            guard let id = entry.productID, entry.state == .registered else { continue }
            steps.append(deleteOrphans
                ? PublishStep(folder: name, action: .deleteOrphan, productID: id, detail: "no folder: delete the listing")
                : PublishStep(folder: name, action: .orphaned, productID: id, detail: "listed, but the folder is gone; --delete-orphans deletes it"))
        }
        return steps
    }

    private mutating func plan(folder: String) async throws -> [PublishStep] {
        let name = (folder as NSString).lastPathComponent
        let key = PublishLedger.key(server: server, folder: folder)
        let check = await check(folder)
        let lookalikes = check.lookalikes(after: &seen, as: name)
        guard check.problems.isEmpty, let draft = check.draft else {
            let allow = (check.shapeProblems.isEmpty ? "" : " (--allow-small lists it anyway)")
                + (check.lookProblems.isEmpty ? "" : " (without --strict, how a photo looks is a warning)")
            var step = PublishStep.failed(name, .blocked, productID: ledger.entries[key]?.productID,
                                          check.problems.joined(separator: "; ") + allow + "; nothing was sent")
            step.warnings = check.warnings + lookalikes
            return [step]
        }
        let images = check.images, photoWarnings = check.warnings + lookalikes
        let snapshot = ListingSnapshot(fields: draft, uploads: images)
        var steps: [PublishStep] = []
        if let id = adoptions[name] {
            let step = await adopt(id: id, name: name, current: snapshot)
            guard step.result == .done else { return [step] }
            steps.append(step)
        } else if let entry = ledger.entries[key], entry.state == .pending {
            switch await adopt(name: name, entry: entry, current: snapshot) {
            case .adopted(let step):
                steps.append(step)
            case .nothingFound where resendPending:
                return [PublishStep(folder: name, action: entry.replaces == nil ? .register : .recreate, productID: entry.replaces,
                                    detail: "looked again and no listing matches the unanswered register: sending it again "
                                        + "(if that one is listed after all, the product will be listed twice)",
                                    payload: .init(snapshot: snapshot, images: images))]
            case .nothingFound(let step), .unresolved(let step):
                return [step]
            }
        }
        var gone: Int?
        if let entry = ledger.entries[key], let id = entry.productID, await isGone(entry) {
            // Forgotten here; the register that follows records the new listing.
            (gone, ledger.entries[key]) = (id, nil)
        }
        steps += PublishPlanner.steps(folder: name, entry: ledger.entries[key], snapshot: snapshot, images: images,
                                      dialect: dialect, allowRecreate: allowRecreate)
        if let gone { steps[steps.count - 1].detail = "product \(gone) is gone from the server: register again, " + steps[steps.count - 1].detail }
        steps[steps.count - 1].warnings = photoWarnings + steps[steps.count - 1].warnings
        return steps
    }

    /// `folder` checked whole, its photos prepared. Preparing blocks while libvips works on its own
    /// threads, so it runs on a thread of its own too: it never holds one of the few threads tasks
    /// share (a server in the same process, or another run, would wait for it).
    private func check(_ folder: String) async -> ProductCheck {
        let (photos, dialect, rules, describe, onPhotoEvent) = (photos, dialect, client.requests.rules, describe, onPhotoEvent)
        let leniency = ProductCheck.Leniency(allowOddShapes: allowOddShapes, strictLooks: strictLooks)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: ProductCheck(folder: folder, photos: photos, dialect: dialect, rules: rules, leniency: leniency,
                                                            describe: describe, onPhotoEvent: onPhotoEvent))
            }
        }
    }

    /// Whether a recorded listing no longer exists: the server answers 404 for it. Not asked in a dry
    /// run, nor within a minute of the record (the servers answer 404 for a moment after a register,
    /// while its images land), nor for a pending one (looked up by `adopt`).
    private func isGone(_ entry: PublishLedger.Entry) async -> Bool {
        guard !dryRun, entry.state == .registered, let id = entry.productID, Date().timeIntervalSince(entry.at) > 60 else { return false }
        do {
            _ = try await client.product(id: id)
            return false
        } catch {
            if case .notFound = error { return true }
            return false
        }
    }

    /// What looking up an unanswered register found.
    private enum Adoption {
        /// Exactly one listing matched, and is now recorded.
        case adopted(PublishStep)
        /// None matched: the request probably never created one.
        case nothingFound(PublishStep)
        /// A dry run, a failed lookup, or more than one match.
        case unresolved(PublishStep)
    }

    /// Looks an unanswered register up on the server and records the listing it created when one
    /// matches what was sent. Otherwise the entry stays pending: registering again could list it twice.
    private mutating func adopt(name: String, entry: PublishLedger.Entry, current: ListingSnapshot) async -> Adoption {
        let sent = entry.sent ?? current
        let sentAt = ISO8601DateFormatter().string(from: entry.at)
        guard !dryRun else {
            return .unresolved(PublishStep(folder: name, action: .pending,
                                           detail: "a register sent at \(sentAt) was never answered: a real run looks it up on the server first"))
        }
        let matcher = ListingMatcher(sent: sent, dialect: dialect, sentAt: entry.at, vendorID: ledger.vendorID(on: server),
                                     excluded: ledger.knownIDs(on: server))
        let result: ListingMatcher.Result
        do {
            let listed = try await client.listings(named: sent.fields.name)
            result = matcher.match(listed.products, serverClockOffset: listed.serverClockOffset)
        } catch {
            return .unresolved(.failed(name, .pending, "a register sent at \(sentAt) was never answered, and looking it up failed: \(describe(error))"))
        }
        if let listing = result.chosen {
            do {
                try record(name, listing: listing, sent: entry.sent, replaces: entry.replaces)
            } catch {
                return .unresolved(.failed(name, .adopt, productID: listing.id, describe(error)))
            }
            return .adopted(PublishStep(folder: name, action: .adopt, productID: listing.id,
                                        detail: "the unanswered register of \(sentAt) had listed it: recorded", result: .done))
        }
        let unanswered = "the register sent at \(sentAt) (never answered)"
        if result.matches.isEmpty {
            let misses = result.nearMisses.map { miss in
                "product \(miss.listing.id) has the name but not the same " + miss.differences.map { "\($0.field) (sent \($0.from), listed \($0.to))" }.joined(separator: ", ")
            }
            return .nothingFound(.failed(name, .pending, "no listing on the server matches what \(unanswered) carried"
                                         + misses.map { "; " + $0 }.joined() + "; if the product is listed, record it with --adopt \(name)=ID; "
                                         + "if it is not listed after a minute, --resend-pending registers it again (twice, if the first one is listed after all)"))
        }
        let ids = result.matches.map { String($0.id) }.joined(separator: ", ")
        return .unresolved(.failed(name, .pending, "\(result.matches.count) listings (\(ids)) match what \(unanswered) carried; "
                                   + "record the right one with --adopt \(name)=ID, or delete the extra ones (market-images delete ID) and rerun"))
    }

    /// Records a listing the seller names for `folder` (`--adopt FOLDER=ID`): its fields as the server
    /// shows them, so the next step edits whatever differs, and the folder's photos as its photos
    /// (the server's cannot be compared with them).
    private mutating func adopt(id: Int, name: String, current: ListingSnapshot) async -> PublishStep {
        if let other = ledger.entries(on: server).first(where: { $0.folder != name && [$0.entry.productID, $0.entry.replaces].contains(id) }) {
            return .failed(name, .adopt, productID: id, "product \(id) is already recorded for \(other.folder)")
        }
        guard !dryRun else { return PublishStep(folder: name, action: .adopt, productID: id, detail: "a real run records product \(id) for this folder") }
        do {
            let listing = try await client.product(id: id)
            if let ours = ledger.vendorID(on: server), let theirs = listing.vendorID, ours != theirs {
                return .failed(name, .adopt, productID: id, "product \(id) belongs to vendor \(theirs), not to this account's vendor \(ours)")
            }
            var fields = current.fields
            fields.name = listing.name
            fields.description = listing.description ?? fields.description
            fields.price = listing.price ?? fields.price
            fields.currency = listing.currency.flatMap(Currency.init(rawValue:)) ?? fields.currency
            fields.stock = listing.stock ?? fields.stock
            fields.salePrice = listing.price == nil ? fields.salePrice : dialect.salePrice(of: listing)
            try record(name, listing: listing, sent: ListingSnapshot(fields: fields, images: current.images), replaces: nil)
            let photos = listing.images.isEmpty || listing.images.count == current.images.count ? ""
                : "; it has \(NumberText.count(listing.images.count, "photo")), the folder \(current.images.count): publish cannot compare photos, so check them"
            return PublishStep(folder: name, action: .adopt, productID: id, detail: "recorded by hand as this folder's listing" + photos, result: .done)
        } catch {
            return .failed(name, .adopt, productID: id, describe(error))
        }
    }

    private mutating func record(_ name: String, listing: ProductResponse, sent: ListingSnapshot?, replaces: Int?) throws {
        try write(name, .init(state: .registered, productID: listing.id, at: Date(), sent: sent, vendorID: listing.vendorID, replaces: replaces))
    }

    // MARK: Applying

    /// Carries out `step`, records what the server accepted, and returns the step with its result.
    /// A dry run carries out nothing.
    public mutating func apply(_ step: PublishStep) async -> PublishStep {
        var step = step
        guard step.result == .planned, !dryRun else { return step }
        do {
            switch step.action {
            case .register:
                try await register(step.folder, step.payload, replacing: nil, into: &step)
            case .recreate:
                let old = step.productID
                try await register(step.folder, step.payload, replacing: old, into: &step)
                if let old { try await deleteReplaced(step.folder, old) }
            case .edit, .replaceImages:
                guard let id = step.productID, let payload = step.payload else { return step }
                let images = step.action == .replaceImages ? payload.images : []
                let product = try await client.edit(id: id, payload.change, images: images, credentials: credentials)
                try record(step.folder) { $0.sent = payload.snapshot; $0.vendorID = product.vendorID ?? $0.vendorID }
            case .unchanged:
                guard let payload = step.payload else { return step }
                try record(step.folder) { $0.sent = payload.snapshot }
            case .deleteReplaced:
                guard let id = step.productID else { return step }
                try await deleteReplaced(step.folder, id)
            case .deleteOrphan:
                guard let id = step.productID else { return step }
                try await deleteListing(id)
                try write(step.folder, nil)
            case .adopt, .blocked, .pending, .orphaned:
                return step
            }
            step.result = .done
        } catch {
            step.result = .failed
            step.error = describe(error)
        }
        return step
    }

    /// Registers behind a pending entry. A refusal forgets the attempt (the previous entry returns);
    /// an unanswered request stays pending for the next run to look up.
    private mutating func register(_ folder: String, _ payload: PublishStep.Payload?, replacing: Int?, into step: inout PublishStep) async throws {
        guard let payload else { return }
        let previous = ledger.entries[key(folder)]
        let known = ledger.knownIDs(on: server)
        try write(folder, .init(state: .pending, at: Date(), sent: payload.snapshot, replaces: replacing))
        let product: ProductResponse
        do {
            product = try await client.register(payload.snapshot.fields, images: payload.images, credentials: credentials)
        } catch {
            guard error.mayHaveBeenActedOn else {
                try write(folder, previous)
                throw error
            }
            throw PublishingError.mayHaveBeenListed(error)
        }
        // Two folders recorded as one listing would make each "unchanged" for ever after.
        guard !known.contains(product.id) else {
            throw PublishingError.mayHaveBeenListed(.invalidResponse("the server answered product id \(product.id), which is already recorded for another listing"))
        }
        try write(folder, .init(state: .registered, productID: product.id, at: Date(), sent: payload.snapshot, vendorID: product.vendorID,
                                replaces: replacing))
        step.productID = product.id
    }

    /// Deletes the listing a recreate replaced; one already gone counts as deleted.
    private mutating func deleteReplaced(_ folder: String, _ id: Int) async throws {
        try await deleteListing(id)
        try record(folder) { $0.replaces = nil }
    }

    private func deleteListing(_ id: Int) async throws {
        do {
            try await client.delete(id: id, credentials: credentials)
        } catch .notFound {
            return
        }
    }

    private mutating func record(_ folder: String, _ update: (inout PublishLedger.Entry) -> Void) throws {
        guard var entry = ledger.entries[key(folder)] else { return }
        update(&entry)
        try write(folder, entry)
    }

    /// Sets `folder`'s entry (nil forgets it) and saves the record: the one place the record is
    /// written, each time before the next request, so a crash at any moment leaves it true.
    private mutating func write(_ folder: String, _ entry: PublishLedger.Entry?) throws {
        ledger.entries[key(folder)] = entry
        try ledger.save(to: productsFolder)
    }

    private func key(_ folder: String) -> String { PublishLedger.key(server: server, folder: folder) }
}

import Foundation
import ImagePipeline
import MarketUploader

/// Brings one server in line with a products folder: plans a step per folder from what the folder
/// holds and what the server holds (the ledger, what was sent, where the server was not read), then
/// applies the steps. The ledger is saved after every request that changed the server, so a crash
/// at any moment leaves it true.
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
    /// Plan only, from the record: nothing is sent, not even a lookup or a read, and the ledger is not written.
    public var dryRun = false
    /// Each photo prepared while planning (for a progress display).
    public var onPhotoEvent: @Sendable (FolderEvent) -> Void = { _ in }
    /// How an error is worded in a step: the caller's words (the command line names its flags).
    public var describe: @Sendable (any Error) -> String = { "\($0)" }
    private(set) var ledger: PublishLedger
    /// The photos of the folders planned so far, for naming near-duplicates across products.
    private var seen = PhotoDuplicates()
    /// What the server held for the recorded products when planning began (nil in a dry run): the
    /// plan compares the folders with it, and `cost` says what reading it took.
    public private(set) var serverRead: ServerListings?
    /// The server's listings as looked through for new folders' products.
    private var search: ListingSearch?
    /// The product folders planned, by name.
    private var present: Set<String> = []
    /// Gone folders whose listing `--adopt` gave to another folder: no orphans.
    private var adoptedFrom: Set<String> = []

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

    /// The steps for `folders` (paths), then one for each listing whose folder is gone. Every folder
    /// is checked first; then renamed folders are told by their content, what the server holds for
    /// the recorded products is read (`ServerListings`, its cost in `serverRead`), and unanswered
    /// registers are looked up, so the plan starts from what is true. A dry run reads the server as
    /// well (reading is not sending), so it shows the plan a real run would carry out.
    public mutating func plan(folders: [String]) async throws -> [PublishStep] {
        present = Set(folders.map { ($0 as NSString).lastPathComponent })
        for (folder, id) in adoptions.sorted(by: { $0.key < $1.key }) where !present.contains(folder) {
            throw PublishingError.noFolderToAdopt(folder: folder, productID: id)
        }
        var checked: [(name: String, check: ProductCheck, lookalikes: [String])] = []
        for folder in folders {
            let check = await check(folder)
            checked.append(((folder as NSString).lastPathComponent, check, check.lookalikes(after: &seen, as: (folder as NSString).lastPathComponent)))
        }
        let recorded = ledger.entries(on: server)
        let gone = Dictionary(uniqueKeysWithValues: recorded.compactMap { folder, entry in
            present.contains(folder) || entry.state != .registered || adoptions.values.contains(entry.productID ?? 0) ? nil : entry.sent.map { (folder, $0) }
        })
        let new = Dictionary(uniqueKeysWithValues: checked.compactMap { name, check, _ in
            ledger.entries[key(name)] != nil || adoptions[name] != nil ? nil : check.draft.map { (name, ListingSnapshot(fields: $0, uploads: check.images)) }
        })
        let renames = FolderRename.match(new: new, gone: gone)
        let ids = recorded.filter { present.contains($0.folder) || renames.values.contains($0.folder) }
            .compactMap { $0.entry.state == .registered ? $0.entry.productID : nil }
        serverRead = try await ServerListings.read(Set(ids), from: client)
        search = ListingSearch(client: client, excluded: ledger.knownIDs(on: server), vendorID: ledger.vendorID(on: server))
        var steps: [PublishStep] = []
        for (name, check, lookalikes) in checked {
            steps += try await plan(name, check, lookalikes: lookalikes, renamedFrom: renames[name])
        }
        let claimed = Set(renames.values).union(adoptedFrom)
        for (name, entry) in ledger.entries(on: server) where !present.contains(name) && !claimed.contains(name) {
            guard let id = entry.productID, entry.state == .registered else { continue }
            steps.append(deleteOrphans
                ? PublishStep(folder: name, action: .deleteOrphan, productID: id, detail: "no folder: delete the listing")
                : PublishStep(folder: name, action: .orphaned, productID: id, detail: "listed, but the folder is gone; --delete-orphans deletes it"))
        }
        return steps
    }

    private mutating func plan(_ name: String, _ check: ProductCheck, lookalikes: [String], renamedFrom old: String?) async throws -> [PublishStep] {
        var entryKey = key(name)
        guard check.problems.isEmpty, let draft = check.draft else {
            let allow = (check.shapeProblems.isEmpty ? "" : " (--allow-small lists it anyway)")
                + (check.lookProblems.isEmpty ? "" : " (without --strict, how a photo looks is a warning)")
                + (check.listingProblems.isEmpty ? "" : " (without --strict, a marketplace's photo rules are warnings)")
            var step = PublishStep.failed(name, .blocked, productID: ledger.entries[entryKey]?.productID,
                                          check.problems.joined(separator: "; ") + allow + "; nothing was sent")
            step.warnings = check.warnings + lookalikes
            return [step]
        }
        let images = check.images, photoWarnings = check.warnings + lookalikes
        let snapshot = ListingSnapshot(fields: draft, uploads: images)
        var steps: [PublishStep] = []
        if let old {
            let step = rename(old, to: name, current: snapshot)
            guard step.result != .failed else { return [step] }
            steps.append(step)
            // A dry run moves nothing: the plan goes on from the old folder's entry.
            if dryRun { entryKey = key(old) }
        }
        if let id = adoptions[name] {
            let step = await adopt(id: id, name: name, current: snapshot)
            guard step.result == .done else { return [step] }
            steps.append(step)
        } else if let entry = ledger.entries[entryKey], entry.state == .pending {
            switch await adopt(name: name, entry: entry, current: snapshot) {
            case .adopted(let step):
                steps.append(step)
            case .nothingFound where resendPending && Date().timeIntervalSince(entry.at) < PublishLedger.listingDelay:
                return [.failed(name, .pending, "the unanswered register was sent \(Int(Date().timeIntervalSince(entry.at))) s ago and the servers "
                                + "can take a minute to list a product: --resend-pending sends it again only after that, so run again then")]
            case .nothingFound where resendPending:
                return [PublishStep(folder: name, action: entry.replaces == nil ? .register : .recreate, productID: entry.replaces,
                                    detail: "looked again and no listing matches the unanswered register: sending it again "
                                        + "(if that one is listed after all, the product will be listed twice)",
                                    payload: .init(snapshot: snapshot, images: images))]
            case .nothingFound(let step), .unresolved(let step):
                return [step]
            }
        }
        var goneID: Int?, held: HeldListing?, listingWarnings: [String] = []
        if ledger.entries[entryKey] == nil, !dryRun {
            switch await registeredElsewhere(name, snapshot) {
            case .adopted(let step, let listing):
                steps.append(step)
                held = ledger.entries[entryKey]?.sent.map { HeldListing(listing, sent: $0, dialect: dialect) }
            case .blocked(let step): return steps + [step]
            case .register(let warnings): listingWarnings = warnings
            }
        }
        var notGoneYet: String?
        if let entry = ledger.entries[entryKey], entry.state == .registered, let id = entry.productID, let read = serverRead {
            let age = Date().timeIntervalSince(entry.at)
            if let listing = read.listings[id] {
                held = entry.sent.map { HeldListing(listing, sent: $0, dialect: dialect) }
                if let disagreement = dialect.priceDisagreement(of: listing) { listingWarnings.append("product \(id): " + disagreement) }
            } else if read.gone.contains(id), age > PublishLedger.listingDelay {
                // Forgotten here; the register that follows records the new listing.
                (goneID, ledger.entries[entryKey]) = (id, nil)
            } else if read.gone.contains(id) {
                // Within a minute of the record the servers still answer 404 for a new listing: planned from the record, and said so.
                notGoneYet = "product \(id) answers 404 now, recorded \(Int(age.rounded())) s ago (a new listing can answer 404 for a minute): "
                    + "planned from the record, checked again on the next run"
            }
        }
        var planned = PublishPlanner.steps(folder: name, entry: ledger.entries[entryKey], snapshot: snapshot, images: images,
                                           dialect: dialect, allowRecreate: allowRecreate, held: held)
        let last = planned.count - 1
        if let goneID { planned[last].detail = "product \(goneID) is gone from the server: register again, " + planned[last].detail }
        if let notGoneYet { planned[last].detail = notGoneYet + (planned[last].detail.isEmpty ? "" : "; " + planned[last].detail) }
        return steps + Self.warned(planned, photoWarnings + listingWarnings)
    }

    /// `steps` with `warnings` first on the last one, the step that sends.
    private static func warned(_ steps: [PublishStep], _ warnings: [String]) -> [PublishStep] {
        var steps = steps
        steps[steps.count - 1].warnings = warnings + steps[steps.count - 1].warnings
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

    /// What looking for a new folder's product on the server decided.
    private enum Elsewhere {
        /// One listing holds the folder's content, and is now recorded as its.
        case adopted(PublishStep, ProductResponse)
        /// Listings that may be the product: nothing is registered until the seller says.
        case blocked(PublishStep)
        /// Register, with these warnings about listings of the same name.
        case register([String])
    }

    /// Looks for folder `name`'s product among the server's listings before registering it
    /// (`ListingSearch`), and records the one that holds its name, price and photos.
    private mutating func registeredElsewhere(_ name: String, _ current: ListingSnapshot) async -> Elsewhere {
        guard var search else { return .register([]) }
        defer { self.search = search }
        let found: ListingSearch.Found
        do {
            found = try await search.find(current)
        } catch {
            return .blocked(.failed(name, .blocked, "it was not registered, since looking for a listing of it on the server failed: \(describe(error))"))
        }
        let ids = { (listings: [ProductResponse]) in listings.map { String($0.id) }.joined(separator: ", ") }
        switch found {
        case .nothing:
            return .register([])
        case .named(let listings):
            return .register(["product \(ids(listings)) on the server has the name \"\(current.fields.name)\" at another price; "
                + "if it is this product, --adopt \(name)=\(listings[0].id) records it instead of registering"])
        case .possible(let listings):
            return .blocked(PublishStep(folder: name, action: .blocked, productID: listings.count == 1 ? listings[0].id : nil,
                                        detail: "possibly listed already: product \(ids(listings)) has this name and price, but not this folder's photos"
                                            + " as uploaded; if it is this product, --adopt \(name)=\(listings[0].id) records it; if not, give this one another name"))
        case .same(let listing):
            let sent = ListingSnapshot(fields: HeldListing.fields(of: listing, over: current.fields, dialect: dialect), images: current.images)
            do {
                try record(name, listing: listing, sent: sent, replaces: nil)
            } catch {
                return .blocked(.failed(name, .adopt, productID: listing.id, describe(error)))
            }
            return .adopted(PublishStep(folder: name, action: .adopt, productID: listing.id,
                                        detail: "listed already (its name, price and photos): recorded instead of registering it again", result: .done),
                            listing)
        }
    }

    /// Moves the record of gone folder `old` to folder `name`, which holds its content.
    private mutating func rename(_ old: String, to name: String, current: ListingSnapshot) -> PublishStep {
        let entry = ledger.entries[key(old)]
        let same = entry?.sent.map { FolderRename.photos($0) == FolderRename.photos(current) } ?? false
        let detail = "renamed from \(old) (" + (same ? "the same photos" : "the same product.json") + "): the same listing, not a new one"
        guard !dryRun else { return PublishStep(folder: name, action: .rename, productID: entry?.productID, detail: detail) }
        do {
            try write(old, nil)
            try write(name, entry)
        } catch {
            return .failed(name, .rename, productID: entry?.productID, describe(error))
        }
        return PublishStep(folder: name, action: .rename, productID: entry?.productID, detail: detail, result: .done)
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
        // A listing recorded for a folder that is gone is handed over (a renamed folder); one whose
        // folder is here is that folder's.
        let other = ledger.entries(on: server).first { $0.folder != name && [$0.entry.productID, $0.entry.replaces].contains(id) }
        if let other, present.contains(other.folder) || other.entry.replaces == id {
            return .failed(name, .adopt, productID: id, "product \(id) is already recorded for \(other.folder), whose folder is here: "
                           + "adopt another listing for \(name), or --adopt \(other.folder)=… first")
        }
        guard !dryRun else { return PublishStep(folder: name, action: .adopt, productID: id, detail: "a real run records product \(id) for this folder") }
        do {
            let listing = try await client.product(id: id)
            if let ours = ledger.vendorID(on: server), let theirs = listing.vendorID, ours != theirs {
                return .failed(name, .adopt, productID: id, "product \(id) belongs to vendor \(theirs), not to this account's vendor \(ours)")
            }
            let fields = HeldListing.fields(of: listing, over: current.fields, dialect: dialect)
            // Its photos are the folder's when their bytes are; otherwise items, whose photos can
            // change, records the server's so the next step replaces them, and on the others (which
            // may re-encode what they are sent) the seller is told.
            let same = await ListingSearch.holds(current, listing, client: client)
            let replaceable = !same && dialect.canChangeImages && !listing.images.isEmpty
            let images = replaceable ? listing.images.map { "on the server: " + $0.url } : current.images
            try record(name, listing: listing, sent: ListingSnapshot(fields: fields, images: images), replaces: nil)
            if let other {
                try write(other.folder, nil)
                adoptedFrom.insert(other.folder)
            }
            let photos = same || listing.images.isEmpty ? ""
                : replaceable ? "; its photos are not the folder's: the next step sends the folder's"
                : "; its \(NumberText.count(listing.images.count, "photo")) \(listing.images.count == 1 ? "is" : "are") not byte for byte the folder's \(current.images.count): "
                    + "check them, and if they differ, --recreate replaces the listing"
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
            case .adopt, .rename, .blocked, .pending, .orphaned:
                return step
            }
            step.result = .done
        } catch {
            step.result = .failed
            step.error = describe(error)
        }
        return step
    }

    /// Registers behind a pending entry (`PublishLedger.register`).
    private mutating func register(_ folder: String, _ payload: PublishStep.Payload?, replacing: Int?, into step: inout PublishStep) async throws {
        guard let payload else { return }
        step.productID = try await ledger.register(folder, on: server, payload.snapshot, images: payload.images, replacing: replacing,
                                                   client: client, credentials: credentials, savingTo: productsFolder).id
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
        try ledger.set(key(folder), entry, savingTo: productsFolder)
    }

    private func key(_ folder: String) -> String { PublishLedger.key(server: server, folder: folder) }
}

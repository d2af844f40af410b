import Foundation
import ImagePipeline
import MarketUploader

/// One product's request as `register`, `edit` and `attach` send it, made whole before anything is
/// sent: the fields (for a register, a product folder's `product.json` under the caller's), the
/// photos prepared in the photo cache, and the request with every rule checked. Where the server
/// cannot change a product's images (G2/G3), new photos are refused before any is prepared, so a
/// request that cannot be sent costs no preparing and leaves no cache behind.
///
/// What is sent is kept in the publish record `publish` reads, so the commands never disagree on what
/// is listed: a product folder registered in the record of the folder that holds it (its products
/// folder), an edit in the record given.
///
/// Errors: `PublishingError` for the fields, the photos and the record, `ImagePipelineError` for a
/// cache that cannot be used, `OpenMarketError` for the server's rules.
public struct ProductSubmission: Sendable {
    private enum Change: Sendable {
        case register(ProductDraft)
        case edit(id: Int, ProductChange)
    }

    private let change: Change
    /// The products folder whose publish record the request goes in; nil for none.
    private let productsFolder: String?
    /// The product folder registered, by name in that record.
    private let folder: String?
    private let client: OpenMarketClient
    private let credentials: Credentials
    /// The prepared photos as upload parts, in order.
    public let images: [UploadImage]
    /// The request as it will be sent, for a dry run to show.
    public let request: OpenMarketRequest

    /// What is allowed but worth a look before a register is sent: a sale deeper than half the
    /// price, and for a product folder what `publish` says of its photos (duplicates, photos not
    /// read or in subfolders, how they look, odd shapes).
    public var warnings: [String] {
        guard case .register(let draft) = change else { return [] }
        return draft.warnings + photoWarnings
    }
    private var photoWarnings: [String] = []

    /// A register of the product `inputs` hold: one product folder, whose `product.json` gives the
    /// fields under `overrides`, or photo files, with every field from `overrides`. A folder already
    /// in its products folder's record is refused: it is listed, or may be. A folder's photos are
    /// read as `publish` reads them (`ProductCheck`: a copy uploaded once, the same warnings), so a
    /// register and then a publish of the folder is "unchanged"; `describe` words the warnings' errors.
    public static func register(_ inputs: [String], overrides: ProductChange, photos: PhotoCache, client: OpenMarketClient,
                                credentials: Credentials, describe: (any Error) -> String = { "\($0)" }) throws -> ProductSubmission {
        var isFolder: ObjCBool = false
        let folder = inputs.count == 1 && FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isFolder) && isFolder.boolValue ? inputs[0] : nil
        let productsFolder = folder.map { URL(fileURLWithPath: $0).standardizedFileURL.deletingLastPathComponent().path }
        let name = folder.map { URL(fileURLWithPath: $0).standardizedFileURL.lastPathComponent }
        if let productsFolder, let name,
           let entry = try PublishLedger.load(from: productsFolder).entries[PublishLedger.key(server: client.requests.baseURL, folder: name)] {
            throw PublishingError.alreadyRecorded(folder: name, productID: entry.state == .registered ? entry.productID : nil,
                                                  record: productsFolder + "/" + PublishLedger.fileName)
        }
        let draft = try ProductFile.draft(folder: folder, overrides: overrides)
        guard let folder else {
            let images = try photos.prepare(inputs).uploads()
            return ProductSubmission(change: .register(draft), productsFolder: nil, folder: nil, client: client, credentials: credentials,
                                     images: images, request: try client.requests.register(draft, images: images, credentials: credentials))
        }
        // Shapes and looks warn, as in a publish without --allow-small's opposite or --strict: register has neither flag.
        let check = ProductCheck(folder: folder, photos: photos, dialect: client.requests.dialect, rules: client.requests.rules,
                                 leniency: .init(allowOddShapes: true), overrides: overrides, describe: describe)
        if let error = check.preparationError { throw error }
        // No images when a photo failed: the typed error, each named (the check read the uploads once already otherwise).
        if check.images.isEmpty { _ = try check.prepared?.uploads() }
        var submission = ProductSubmission(change: .register(draft), productsFolder: productsFolder, folder: name, client: client, credentials: credentials,
                                           images: check.images, request: try client.requests.register(draft, images: check.images, credentials: credentials))
        submission.photoWarnings = check.warnings.filter { !draft.warnings.contains($0) }
        return submission
    }

    /// An edit of listing `id`: `change`, and the photos `newPhotos` hold as its images where the
    /// server takes them (G1: the set is replaced). With `productsFolder`, its publish record keeps
    /// what the listing holds after the edit.
    public static func edit(id: Int, _ change: ProductChange, newPhotos: [String], photos: PhotoCache, client: OpenMarketClient,
                            credentials: Credentials, productsFolder: String? = nil) throws -> ProductSubmission {
        if !newPhotos.isEmpty { try client.requests.checkImagesCanChange() }
        // A record that cannot be read is said before the edit, not after it.
        if let productsFolder { _ = try PublishLedger.load(from: productsFolder) }
        let images = newPhotos.isEmpty ? [] : try photos.prepare(newPhotos).uploads()
        return ProductSubmission(change: .edit(id: id, change), productsFolder: productsFolder, folder: nil, client: client, credentials: credentials,
                                 images: images, request: try client.requests.edit(id: id, change, images: images, credentials: credentials))
    }

    /// Sends the request and records it, holding the products folder meanwhile (`PublishLedger.lock`);
    /// the product as the server answers it.
    public func send() async throws -> ProductResponse {
        let server = client.requests.baseURL
        let lock = try productsFolder.map(PublishLedger.lock)
        defer { withExtendedLifetime(lock) {} }
        switch change {
        case .register(let draft):
            guard let productsFolder, let folder else { return try await client.register(draft, images: images, credentials: credentials) }
            var ledger = try PublishLedger.load(from: productsFolder)
            return try await ledger.register(folder, on: server, ListingSnapshot(fields: draft, uploads: images), images: images,
                                             client: client, credentials: credentials, savingTo: productsFolder)
        case .edit(let id, let change):
            let product = try await client.edit(id: id, change, images: images, credentials: credentials)
            guard let productsFolder else { return product }
            var ledger = try PublishLedger.load(from: productsFolder)
            let dialect = client.requests.dialect, uploads = images
            if ledger.update(productID: id, on: server, { entry in
                guard var sent = entry.sent else { return }
                sent.fields = HeldListing.fields(of: product, over: sent.fields, dialect: dialect)
                if !uploads.isEmpty { sent.images = ListingSnapshot(fields: sent.fields, uploads: uploads).images }
                entry.sent = sent
            }) { try ledger.save(to: productsFolder) }
            return product
        }
    }
}

import Foundation
import ImagePipeline
import MarketUploader

/// One product's request as `register`, `edit` and `attach` send it, made whole before anything is
/// sent: the fields (for a register, a product folder's `product.json` under the caller's), the
/// photos prepared in the photo cache, and the request with every rule checked. Where the server
/// cannot change a product's images (G2/G3), new photos are refused before any is prepared, so a
/// request that cannot be sent costs no preparing and leaves no cache behind.
///
/// Errors: `PublishingError` for the fields and the photos, `ImagePipelineError` for a cache that
/// cannot be used, `OpenMarketError` for the server's rules.
public struct ProductSubmission: Sendable {
    private enum Change: Sendable {
        case register(ProductDraft)
        case edit(id: Int, ProductChange)
    }

    private let change: Change
    private let client: OpenMarketClient
    private let credentials: Credentials
    /// The prepared photos as upload parts, in order.
    public let images: [UploadImage]
    /// The request as it will be sent, for a dry run to show.
    public let request: OpenMarketRequest

    /// What is allowed but worth a look before a register is sent: a sale deeper than half the price.
    public var warnings: [String] {
        guard case .register(let draft) = change else { return [] }
        return draft.warnings
    }

    /// A register of the product `inputs` hold: one product folder, whose `product.json` gives the
    /// fields under `overrides`, or photo files, with every field from `overrides`.
    public static func register(_ inputs: [String], overrides: ProductChange, photos: PhotoCache, client: OpenMarketClient,
                                credentials: Credentials) throws -> ProductSubmission {
        var isFolder: ObjCBool = false
        let folder = inputs.count == 1 && FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isFolder) && isFolder.boolValue ? inputs[0] : nil
        let draft = try ProductFile.draft(folder: folder, overrides: overrides)
        let images = try photos.prepare(inputs).uploads()
        return ProductSubmission(change: .register(draft), client: client, credentials: credentials, images: images,
                                 request: try client.requests.register(draft, images: images, credentials: credentials))
    }

    /// An edit of listing `id`: `change`, and the photos `newPhotos` hold as its images where the
    /// server takes them (G1: the set is replaced).
    public static func edit(id: Int, _ change: ProductChange, newPhotos: [String], photos: PhotoCache, client: OpenMarketClient,
                            credentials: Credentials) throws -> ProductSubmission {
        if !newPhotos.isEmpty { try client.requests.checkImagesCanChange() }
        let images = newPhotos.isEmpty ? [] : try photos.prepare(newPhotos).uploads()
        return ProductSubmission(change: .edit(id: id, change), client: client, credentials: credentials, images: images,
                                 request: try client.requests.edit(id: id, change, images: images, credentials: credentials))
    }

    /// Sends the request; the product as the server answers it.
    public func send() async throws(OpenMarketError) -> ProductResponse {
        switch change {
        case .register(let draft): try await client.register(draft, images: images, credentials: credentials)
        case .edit(let id, let change): try await client.edit(id: id, change, images: images, credentials: credentials)
        }
    }
}

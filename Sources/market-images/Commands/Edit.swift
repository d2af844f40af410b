import ArgumentParser
import Foundation
import MarketUploader
import Publishing

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a product's fields, and on the items (G1) server its images.",
        discussion: """
        Only the fields given change. Images given to an items (G1) server become the product's images \
        (the set is replaced); the market-training and openmarket servers cannot change images after \
        registration, and the command says so without sending anything. On those, --thumbnail-id picks \
        one of the product's images as its thumbnail. With --products, the products folder's publish \
        record keeps what the listing holds after the edit.

        EXAMPLES:
          market-images edit 1234 --price 11000 --stock 3
          market-images edit 1234 --stock 1 --products products/
          market-images edit 1234 --thumbnail-id 5678
          market-images edit 77 --dialect items --password "$PW" \\
              new-front.HEIC new-side.HEIC
        """
    )

    @Argument(help: "The product id.")
    var id: Int

    @Argument(help: "Photos that become the product's images (items server only).")
    var images: [String] = []

    @OptionGroup var product: ProductOptions

    @Option(help: "Id of one of the product's images to show as its thumbnail (G2/G3).")
    var thumbnailID: Int?

    @OptionGroup var record: PublishRecordOption

    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        var change = product.change
        change.thumbnailID = thumbnailID
        try await EditRequest(id: id, change: change, images: images, record: record, connection: connection, photos: photos, command: "edit").run()
    }
}

/// What `edit` and `attach` share: the change sent, or shown on a dry run.
struct EditRequest {
    var id: Int
    var change: ProductChange
    var images: [String]
    var record: PublishRecordOption
    var connection: ServerOptions
    var photos: UploadPhotos
    /// `edit` or `attach`: which command's options a message may suggest.
    var command: String

    func run() async throws {
        let credentials = try connection.credentials
        let client = try connection.client()
        let submission: ProductSubmission
        do {
            submission = try photos.submission { cache in
                try ProductSubmission.edit(id: id, change, newPhotos: images, photos: cache, client: client, credentials: credentials,
                                           productsFolder: record.products)
            }
        } catch OpenMarketError.unsupported(let text) where command == "attach" {
            // `attach` has no --thumbnail-id; it points at the command that does.
            throw CommandFailure(text + " (market-images edit \(id) --thumbnail-id N)")
        }
        try await connection.perform(submission) { "updated product \($0.id): \($0.name)" }
    }
}

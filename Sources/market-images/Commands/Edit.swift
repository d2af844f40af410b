import ArgumentParser
import Foundation
import MarketUploader

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a product's fields, and on the items (G1) server its images.",
        discussion: """
        Only the fields given change. Images given to an items (G1) server become the product's images \
        (the set is replaced); the market-training and openmarket servers cannot change images after \
        registration, and the command says so without sending anything. On those, --thumbnail-id picks \
        one of the product's images as its thumbnail.

        EXAMPLES:
          market-images edit 1234 --price 11000 --stock 3
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

    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        var change = product.change
        change.thumbnailID = thumbnailID
        try await EditRequest(id: id, change: change, images: images, connection: connection, photos: photos, command: "edit").run()
    }
}

/// What `edit` and `attach` share: refuse images where the dialect cannot take them before
/// preparing anything, then build, show or send the PATCH.
struct EditRequest {
    var id: Int
    var change: ProductChange
    var images: [String]
    var connection: ServerOptions
    var photos: UploadPhotos
    /// `edit` or `attach`: which command's options a message may suggest.
    var command: String

    func run() async throws {
        let credentials = try connection.credentials
        let client = try connection.client()
        let request: OpenMarketRequest
        let uploads: [UploadImage]
        do {
            if !images.isEmpty { try client.requests.checkImagesCanChange() }
            uploads = images.isEmpty ? [] : try photos.prepare(images)
            request = try client.requests.edit(id: id, change, images: uploads, credentials: credentials)
        } catch let error as OpenMarketError {
            // `attach` has no --thumbnail-id; it points at the command that does.
            if case .unsupported = error, command == "attach" {
                Terminal.standardError.error(error.description + " (market-images edit \(id) --thumbnail-id N)")
            } else {
                Terminal.standardError.error(error.message)
            }
            throw ExitCode.failure
        }
        try await connection.perform(request, summary: { "updated product \($0.id): \($0.name)" }) { () throws(OpenMarketError) in
            try await client.edit(id: id, change, images: uploads, credentials: credentials)
        }
    }
}

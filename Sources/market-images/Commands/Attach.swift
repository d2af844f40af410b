import ArgumentParser
import Foundation
import MarketUploader

struct Attach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give an existing product new images (items server; the set is replaced).",
        discussion: """
        The items (G1) server takes images on its PATCH, and they become the product's images. The \
        market-training and openmarket servers cannot change a product's images after it is registered: \
        the command explains this and sends nothing.

        EXAMPLES:
          market-images attach 77 front.HEIC side.HEIC --dialect items \\
              --password "$PW"
          market-images attach 77 photos/sku-77 --dry-run \\
              --server https://camp-open-market-2.herokuapp.com
        """
    )

    @Argument(help: "The product id.")
    var id: Int

    @Argument(help: "Photo files or a folder of them (1–5).")
    var images: [String]

    @OptionGroup var record: PublishRecordOption
    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        try await EditRequest(id: id, change: ProductChange(), images: images, record: record, connection: connection, photos: photos, command: "attach").run()
    }
}

import ArgumentParser
import Foundation
import MarketUploader
import Publishing

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register a product with its photos.",
        discussion: """
        Photos (1–5; any format the camera made) are prepared first — upright, sRGB, no metadata, under \
        the server's byte limit — and cached, then sent in one multipart request. Every rule is checked \
        before anything is sent. A folder may hold a product.json with name, description, price, currency, \
        stock and sale_price (what a buyer pays); flags override it. A folder is recorded in the \
        publish record of the folder that holds it, as publish records it, so a later publish of that \
        folder knows the listing; a folder already recorded there is refused.

        Credentials come from --identifier/--secret (G2/G3) or --password (G1), or from \
        $OPENMARKET_IDENTIFIER, $OPENMARKET_SECRET, $OPENMARKET_PASSWORD. They never appear in output.

        EXAMPLES:
          market-images register photos/sku-123
          market-images register IMG_1.HEIC IMG_2.HEIC --name "Ceramic mug" \\
              --description "Hand-thrown, 350 ml" --price 12000 --stock 3
          market-images register photos/sku-123 --dry-run \\
              --server https://camp-open-market-2.herokuapp.com
        """
    )

    @Argument(help: "A product folder, or photo files.")
    var inputs: [String]

    @OptionGroup var product: ProductOptions
    @OptionGroup var connection: ServerOptions
    @OptionGroup var photos: UploadPhotos

    func run() async throws {
        let credentials = try connection.credentials
        let client = try connection.client()
        let submission = try ProductOptions.usage {
            try photos.submission { cache in
                try ProductSubmission.register(inputs, overrides: product.change, photos: cache, client: client, credentials: credentials, describe: errorText)
            }
        }
        for warning in submission.warnings { Terminal.standardError.warning(warning) }
        let dialect = client.requests.dialect
        try await connection.perform(submission) {
            "registered product \($0.id): \($0.name) at \(ProductText.price(of: $0, dialect: dialect)) (\(count($0.images.count, "image")))"
        }
    }
}

extension FileManager {
    func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

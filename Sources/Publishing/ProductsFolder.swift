import Foundation
import ImagePipeline

/// A folder of product folders as `publish` reads it: its product folders in natural order (those
/// with a `product.json` and no photos among them, so what they lack is named), and what lies
/// directly in it that is not read (a link out of it, a RAW file), each with why. What a product
/// folder holds and does not read is its own step's warning.
public struct ProductsFolder: Sendable {
    public let path: String
    public let productFolders: [String]
    /// `private: is a link to …, outside its folder, and is not read; …`
    public let warnings: [String]

    public init(_ path: String) {
        let scan = ProductScanner().scan([path])
        self.path = path
        productFolders = scan.productFolders(under: path)
        warnings = scan.notRead(directlyIn: path).map { "\(($0.path as NSString).lastPathComponent): \($0.reason)" }
    }
}

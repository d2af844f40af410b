import Foundation

/// Finds the photos that repeat earlier ones (`PhotoDuplicate`), product by product in upload
/// order: within a product a copy or a near-duplicate of a photo before it; across products a
/// near-duplicate of an earlier product's photo. `prepare` finds them for a whole run; `publish` and
/// `preview`, which prepare a product at a time, take each product's own from its run and keep one
/// of these for the products before it.
public struct PhotoDuplicates: Sendable {
    /// A prepared photo as compared: its source, its prepared file and size (the bytes are read
    /// only when two sizes match), its look.
    public struct Photo: Sendable {
        public var source: String
        public var file: String
        public var bytes: Int
        public var look: PhotoLook?

        /// `output` as recorded in the manifest of `outputFolder`.
        public init(_ output: Manifest.Output, in outputFolder: String) {
            (source, file, bytes, look) = (output.source, (outputFolder as NSString).appendingPathComponent(output.output), output.bytes, output.look)
        }

        func isCopy(of other: Photo) -> Bool {
            bytes == other.bytes && FileManager.default.contentsEqual(atPath: file, andPath: other.file)
        }

        func resembles(_ other: Photo) -> Bool {
            guard let look, let theirs = other.look else { return false }
            return look.resembles(theirs)
        }
    }

    /// The photos of the products seen so far, by product.
    private var earlier: [(product: String, photos: [Photo])] = []

    public init() {}

    /// The photos of one product that repeat one before them in it. A copy is named with the photo
    /// it copies, never with another copy.
    public static func within(_ photos: [Photo]) -> [PhotoDuplicate] {
        var kept: [Photo] = [], found: [PhotoDuplicate] = []
        for photo in photos {
            if let same = kept.first(where: photo.isCopy) {
                found.append(PhotoDuplicate(source: photo.source, original: same.source, kind: .copy))
                continue
            }
            if let alike = kept.first(where: photo.resembles) {
                found.append(PhotoDuplicate(source: photo.source, original: alike.source, kind: .nearDuplicate))
            }
            kept.append(photo)
        }
        return found
    }

    /// The photos of `product` that look like a photo of a product seen before, each named with the
    /// first such; then `product` is among those seen.
    public mutating func across(product: String, _ photos: [Photo]) -> [PhotoDuplicate] {
        let found = photos.compactMap { photo in
            earlier.lazy.compactMap { other in
                other.photos.first(where: photo.resembles).map {
                    PhotoDuplicate(source: photo.source, original: $0.source, kind: .nearDuplicate, otherProduct: other.product)
                }
            }.first
        }
        earlier.append((product, photos))
        return found
    }

    /// The duplicates of a run of `prepare`: `products` as scanned, their `prepared` outputs recorded
    /// in `outputFolder`. Photos given one by one (no product) are compared among themselves only.
    static func of(_ products: [ProductPhotos], prepared: [Manifest.Output], in outputFolder: String) -> [PhotoDuplicate] {
        let bySource = Dictionary(prepared.map { ($0.source, $0) }, uniquingKeysWith: { $1 })
        var seen = PhotoDuplicates()
        return products.flatMap { product in
            let photos = product.photos.compactMap { bySource[$0.path].map { Photo($0, in: outputFolder) } }
            return within(photos) + (product.name.isEmpty ? [] : seen.across(product: product.name, photos))
        }
    }
}

import Foundation

/// Finds the photos that repeat earlier ones (`PhotoDuplicate`), product by product in upload
/// order: within a product a copy or a near-duplicate of another of its photos; across products the
/// same photo as, or a near-duplicate of, an earlier product's photo. `prepare` finds them for a whole run; `publish` and
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

    /// The photos of one product that repeat another in it. A copy is named with the photo it
    /// copies, never with another copy; the original is the name a person made (`IMG_2041.JPG`, not
    /// `IMG_2041 copy.JPG`, which natural order puts first), then the older file, then upload order.
    public static func within(_ photos: [Photo]) -> [PhotoDuplicate] {
        var kept: [Photo] = [], found: [PhotoDuplicate] = []
        for photo in originalsFirst(photos) {
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

    /// The photos of `product` that repeat a photo of a product seen before, each named with the
    /// first such: the same photo when the bytes are, else a near-duplicate; then `product` is among
    /// those seen.
    public mutating func across(product: String, _ photos: [Photo]) -> [PhotoDuplicate] {
        let found = photos.compactMap { photo in
            earlier.lazy.compactMap { other in
                if let same = other.photos.first(where: photo.isCopy) {
                    return PhotoDuplicate(source: photo.source, original: same.source, kind: .copy, otherProduct: other.product)
                }
                return other.photos.first(where: photo.resembles).map {
                    PhotoDuplicate(source: photo.source, original: $0.source, kind: .nearDuplicate, otherProduct: other.product)
                }
            }.first
        }
        earlier.append((product, Self.originalsFirst(photos)))
        return found
    }

    /// `photos` in the order they claim to be an original: names without a copy's suffix first
    /// (`isCopyName`), then by modification time, then as given.
    static func originalsFirst(_ photos: [Photo]) -> [Photo] {
        let keyed = photos.enumerated().map { index, photo in
            let modified = (try? FileManager.default.attributesOfItem(atPath: photo.source)[.modificationDate] as? Date) ?? .distantFuture
            return (photo: photo, copyName: isCopyName(photo.source), modified: modified, index: index)
        }
        return keyed.sorted { a, b in
            if a.copyName != b.copyName { return !a.copyName }
            if a.modified != b.modified { return a.modified < b.modified }
            return a.index < b.index
        }.map(\.photo)
    }

    /// Whether a file's name is what a computer gives a copy: `IMG_2041 copy.JPG`, `IMG_2041 copy 2`,
    /// `IMG_2041 - Copy` (Windows), `IMG_2041 (1)`, `IMG_2041 (edited)`, `IMG_2041-edited`, `IMG_2041 사본`.
    static func isCopyName(_ path: String) -> Bool {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
        return stem.range(of: #"([ _-](copy|사본)( \d+)?|[ _-]?\((\d+|edited)\)|[ _-]edited)$"#, options: .regularExpression) != nil
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

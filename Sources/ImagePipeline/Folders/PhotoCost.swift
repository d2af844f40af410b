import Foundation

/// A guess at how long a photo takes, from its size and kind alone, so a run with several workers
/// starts its slowest photos first: one started last keeps a core busy while the others sit idle
/// (on the corpus, the 12 MP HEIC started fifth of seven set the run's length).
enum PhotoCost {
    /// Bytes weighed by what decoding a byte costs: HEIF and AVIF decode their whole grid (no scaled
    /// decode) at about four times a JPEG's time a byte (`prepare --jobs 1` per corpus photo).
    static func estimate(_ path: String) -> Int {
        let size = (try? FileStatus.of(path).get())?.size ?? 0
        switch (path as NSString).pathExtension.lowercased() {
        case "heic", "heif", "hif", "avif": return size * 4
        default: return size
        }
    }

    /// `positions` of `photos`, slowest first; ties keep their order.
    static func slowestFirst(_ positions: [Int], of photos: [SourcePhoto]) -> [Int] {
        let costs = positions.map { estimate(photos[$0].path) }
        return positions.indices.sorted { costs[$0] != costs[$1] ? costs[$0] > costs[$1] : $0 < $1 }.map { positions[$0] }
    }
}

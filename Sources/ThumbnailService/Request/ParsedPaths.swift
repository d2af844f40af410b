import Foundation
import ImagePipeline

/// Image paths (signature included) already accepted and parsed, by their text. A cache hit's URL
/// comes again and again, and checking its signature and parsing it (presets, the option table, a
/// base64 source) were about a fifth of a hit's CPU; the same bytes carry the same signature, so a
/// path found here needs neither. Only paths the signature accepted get here, so a client cannot
/// fill it with paths of its own unless the service runs unsigned; either way it holds at most
/// `countLimit` paths of at most `lengthLimit` bytes, and starts over when full (the URLs asked
/// most are back at once). An `expires` is checked on every use, as a parse checks it.
final class ParsedPaths: Sendable {
    static let countLimit = 4096
    static let lengthLimit = 1024

    private struct Key: Hashable {
        let path: String
        let info: Bool
    }

    private let entries = Locked<[Key: ImageRequestPath]>([:])

    /// `path` as `accept` checks and parses it, or as it did before.
    func parsed(_ path: String, info: Bool, now: Date = Date(),
                by accept: (String) throws(ServiceFailure) -> ImageRequestPath) throws(ServiceFailure) -> ImageRequestPath {
        let key = Key(path: path, info: info)
        if let known = entries.withLock({ $0[key] }) {
            do { try known.checkNotExpired(now: now) } catch { throw ServiceFailure(error) }
            return known
        }
        let parsed = try accept(path)
        guard path.utf8.count <= Self.lengthLimit else { return parsed }
        entries.withLock { entries in
            if entries.count >= Self.countLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = parsed
        }
        return parsed
    }
}

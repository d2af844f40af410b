import Foundation
import ImagePipeline

/// An `http(s)` URL taken apart and normalised, so that a source is compared with an
/// `--allow-source` prefix by its parts and fetched exactly as compared. Dot segments are resolved
/// (`%2e` counts as a dot, as servers decode it), and a path that would need a server's help to read
/// (an encoded slash or backslash, a raw backslash, `..` above the root) is no URL at all: a string
/// prefix check on `…/images/../private/` or `…/images/..%2fprivate/` passed, and the origin walked out.
/// Percent-encoding is normalised as RFC 3986 §6.2.2 says (unreserved characters decoded, the rest's
/// hex upper-case), so every spelling of one URL (`/%70hoto.jpg`, `/photo%2Ejpg`) is one source, one
/// download and one ETag: twenty spellings were twenty renders.
struct SourceURL: Equatable, Sendable {
    let scheme: String
    let host: String
    let port: Int
    /// Path segments after the first `/`, percent-encoding normalised.
    let segments: [String]
    let query: String?
    /// For a prefix: whether URLs under it may carry a query string (it ended with `?`).
    private(set) var allowsQuery = false

    init?(_ text: String) {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parts.user == nil, parts.password == nil, var host = parts.host?.lowercased(), !host.isEmpty,
              !host.contains("%"), !host.contains("/") else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.split(separator: ".", omittingEmptySubsequences: false).contains("") else { return nil }
        let path = parts.percentEncodedPath
        guard path.isEmpty || path.hasPrefix("/") else { return nil }
        var segments: [String] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let lowered = segment.lowercased()
            guard !lowered.contains("%2f"), !lowered.contains("%5c"), !segment.contains("\\") else { return nil }
            switch Self.normalised(segment) {
            case ".": if segments.last != "" { segments.append("") }
            case "..":
                guard !segments.isEmpty else { return nil }
                segments.removeLast()
                segments.append("")
            default:
                if segments.last == "" { segments.removeLast() }
                segments.append(Self.normalised(segment))
            }
        }
        self.scheme = scheme
        self.host = host
        self.port = parts.port ?? (scheme == "https" ? 443 : 80)
        self.segments = segments.isEmpty ? [""] : segments
        query = parts.percentEncodedQuery.map { Self.normalised($0[...]) }
    }

    /// `%XX` of an unreserved character (letters, digits, `-._~`) as the character; any other `%xx`
    /// with its hex upper-case. URLComponents has already refused what is not valid encoding.
    private static func normalised(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes = Array(text.utf8)[...]
        var out: [UInt8] = []
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%"), bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                out.append(byte)
                continue
            }
            bytes.removeFirst(2)
            let character = Character(Unicode.Scalar(value))
            if value < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                out.append(value)
            } else {
                out += Array(String(format: "%%%02X", value).utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An `--allow-source` prefix: a URL with a path (at least the `/` ending its host, so
    /// `http://host.example.com` cannot also allow `http://host.example.com.evil.test`), no query,
    /// and nothing a normalised URL would drop or refuse. Ending it with `?` says that the query
    /// strings of URLs under it choose the image (an origin that renders by parameters); otherwise a
    /// source with a query is refused, since each new query would be one more download and output.
    init?(prefix given: String) {
        let text = given.hasSuffix("?") ? String(given.dropLast()) : given
        guard let url = SourceURL(text), url.query == nil, !text.contains("#"), text.dropFirst(url.scheme.count + 3).contains("/") else { return nil }
        self = url
        allowsQuery = given.hasSuffix("?")
    }

    /// The URL to request: exactly what was checked, without a fragment.
    var text: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "s3" || (scheme == "https" ? 443 : 80) == port
        return "\(scheme)://\(hostText)\(defaultPort ? "" : ":\(port)")/" + segments.joined(separator: "/") + (query.map { "?" + $0 } ?? "")
    }

    /// Whether this URL lies under `prefix`: the same scheme and port, the host's labels, the
    /// prefix's whole segments, and its last segment (empty when it ends with `/`) starting the next
    /// one; a `*` in a label or segment matches within it (`Wildcard`).
    func isUnder(_ prefix: SourceURL) -> Bool {
        let labels = (host.split(separator: ".", omittingEmptySubsequences: false), prefix.host.split(separator: ".", omittingEmptySubsequences: false))
        guard scheme == prefix.scheme, port == prefix.port, labels.0.count == labels.1.count, zip(labels.1, labels.0).allSatisfy(Wildcard.matches),
              prefix.query == nil, query == nil || prefix.allowsQuery else { return false }
        let (mine, theirs) = (segments.map { $0[...] }, prefix.segments.map { $0[...] })
        return Wildcard.matchesPrefix(theirs, mine) && (segments.count > prefix.segments.count || !segments[prefix.segments.count - 1].isEmpty)
    }
}

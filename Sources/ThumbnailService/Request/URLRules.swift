import Foundation

/// How this service reads a URL's options: its preset table, and whether URLs may only name presets
/// (`onlyPresets`), then with a `dpr` from `presetDPRs` alone, so the outputs per source stay few and
/// known whatever an unsigned client sends.
struct URLRules: Sendable {
    var presets: [String: String]
    var onlyPresets: Bool
    var presetDPRs: Set<Double>
    var allowSecurityOptions = false
    /// URLs lie under this path (`/img/{signature}/…`, imgproxy's `IMGPROXY_PATH_PREFIX`), which is
    /// not signed, so URLs keep their signatures when the prefix moves.
    var pathPrefix: String?

    /// The path under the prefix (from its `/`), or nil when it is not under it.
    func unprefixed(_ path: String) -> Substring? {
        guard let pathPrefix else { return path[...] }
        let rest = path.utf8.starts(with: pathPrefix.utf8) ? path.dropFirst(pathPrefix.count) : nil
        return rest?.first == "/" ? rest : nil
    }

    func parse(_ path: String, info: Bool) throws(ProcessingError) -> ImageRequestPath {
        try ImageRequestPath.parse(path, presets: presets, onlyPresets: onlyPresets, dprs: presetDPRs, allowSecurityOptions: allowSecurityOptions, info: info)
    }
}

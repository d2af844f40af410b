import Foundation

/// How this service reads a URL's options: its preset table, and whether URLs may only name presets
/// (`onlyPresets`), then with a `dpr` from `presetDPRs` alone, so the outputs per source stay few and
/// known whatever an unsigned client sends.
struct URLRules: Sendable {
    var presets: [String: String]
    var onlyPresets: Bool
    var presetDPRs: Set<Double>
    var allowSecurityOptions = false

    func parse(_ path: String) throws(ProcessingError) -> ImageRequestPath {
        try ImageRequestPath.parse(path, presets: presets, onlyPresets: onlyPresets, dprs: presetDPRs, allowSecurityOptions: allowSecurityOptions)
    }
}

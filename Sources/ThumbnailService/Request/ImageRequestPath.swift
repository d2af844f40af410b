import Foundation
import ImagePipeline

/// A thumbnail-service path after its signature, `/{option}/…/{source}`, parsed: the options, and
/// the source from `plain/{percent-encoded}@{ext}` or base64url (split by `/` anywhere) `.{ext}`.
/// The extension sets the format, as in imgproxy.
public struct ImageRequestPath: Sendable, Equatable {
    public var options: ProcessingOptions
    /// The source as the URL names it: `local:///sku-1/IMG_1.jpg`, `https://…`.
    public var source: String
    /// The presets an image URL may name under `onlyPresets` (`thumb:blurry:watermarked` is three).
    public static let presetListLimit = 3

    /// Paths longer than this are refused before parsing.
    public static let lengthLimit = 8192

    /// `allowSecurityOptions` lets the URL's own options lower the service's limits (never needed
    /// inside a preset, which is the operator's). `onlyPresets` limits the URL's own options to
    /// presets, a `dpr` from `dprs` and the format (what is inside a preset is the operator's, and
    /// unrestricted), and takes imgproxy's presets-only grammar too: a first segment of bare preset
    /// names, `:`-joined (`/thumb:blurry/plain/…`). A preset named `default` applies to every URL
    /// first, as in imgproxy.
    /// Under `onlyPresets`, an image URL names 1 to `presetListLimit` presets, an `info` URL (whose
    /// answer is the source's) at most one.
    public static func parse(_ path: String, presets: [String: String] = ProcessingOptions.standardPresets, onlyPresets: Bool = false,
                             dprs: Set<Double> = ProcessingOptions.presetDPRs, allowSecurityOptions: Bool = false, info: Bool = false,
                             now: Date = Date()) throws(ProcessingError) -> ImageRequestPath {
        guard path.utf8.count <= lengthLimit else { throw .invalidSource("the path is over \(lengthLimit) bytes") }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.first == "" { segments.removeFirst() }
        var options = ProcessingOptions()
        if presets["default"] != nil { try options.apply("pr:default", presets: presets) }
        // Presets the URL names itself (not `default`, nor those inside presets).
        var (index, presetsNamed) = (0, 0)
        func decoded(_ index: Int) -> String {
            segments[index].replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":")
        }
        if onlyPresets, let first = segments.indices.first.map(decoded), first != "plain" {
            let names = first.split(separator: ":", omittingEmptySubsequences: false)
            if names.allSatisfy({ presets[String($0)] != nil }) {
                try options.apply("pr:" + first, presets: presets)
                (index, presetsNamed) = (1, names.count)
            }
        }
        // Options end at the first segment without a separator (imgproxy); `%3A` counts as one.
        while index < segments.count {
            let segment = decoded(index)
            guard segment.contains(":") else { break }
            if onlyPresets { try OptionTable.checkAllowedWithPresetsOnly(segment, dprs: dprs) }
            if OptionTable.isPreset(segment) { presetsNamed += segment.split(separator: ":", omittingEmptySubsequences: false).count - 1 }
            if !allowSecurityOptions { try OptionTable.checkNotSecurityOption(segment) }
            try options.apply(segment, presets: presets)
            index += 1
        }
        let sourceSegments = Array(segments[index...])
        let (source, fileExtension): (String, String?)
        if sourceSegments.first == "plain" {
            (source, fileExtension) = try plainSource(sourceSegments.dropFirst().joined(separator: "/"))
        } else {
            (source, fileExtension) = try base64Source(sourceSegments.joined())
        }
        if let fileExtension { options.format = try ProcessingOptions.format(fileExtension) }
        if onlyPresets, !(info ? 0...1 : 1...presetListLimit).contains(presetsNamed) { throw .presetCount(presetsNamed) }
        let parsed = ImageRequestPath(options: options, source: source)
        try parsed.checkNotExpired(now: now)
        return parsed
    }

    /// A URL past its `expires` (imgproxy's; 0 is none) is refused.
    func checkNotExpired(now: Date) throws(ProcessingError) {
        if let expires = options.expires, expires.timeIntervalSince1970 > 0, expires < now { throw .expired }
    }

    private static func plainSource(_ text: String) throws(ProcessingError) -> (String, String?) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw .invalidSource("more than one @ in a plain source; escape @ as %40") }
        guard let source = parts[0].removingPercentEncoding, !source.isEmpty else {
            throw .invalidSource(parts[0].isEmpty ? "nothing after plain/" : "invalid percent-encoding")
        }
        return (source, parts.count == 2 ? String(parts[1]) : nil)
    }

    private static func base64Source(_ text: String) throws(ProcessingError) -> (String, String?) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw .invalidSource("more than one . after a base64 source") }
        guard parts[0].contains(where: { $0 != "=" }) else { throw .invalidSource("no source after the options") }
        guard let data = Base64URL.decode(parts[0]), let source = String(data: data, encoding: .utf8), !source.isEmpty else {
            throw .invalidSource("not base64url-encoded UTF-8")
        }
        return (source, parts.count == 2 ? String(parts[1]) : nil)
    }
}

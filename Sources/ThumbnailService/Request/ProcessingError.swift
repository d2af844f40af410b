/// Why a thumbnail-service path cannot be processed, before any source is touched. A server maps
/// these to statuses (400 for a malformed request, 404 for an unknown preset or an expired URL).
public enum ProcessingError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownOption(String)
    /// An option the service serves only through its presets (`onlyPresets`).
    case optionNotAllowed(String)
    /// One of imgproxy's security options (`msr`, `msfs`, `mrd`, `maf`, `mafr`) where the service
    /// does not allow them.
    case securityOptionNotAllowed(String)
    /// Under `onlyPresets`, an image URL names one to `ImageRequestPath.presetListLimit` presets:
    /// longer combinations would multiply the outputs a keyless client can make of one source.
    case presetCount(Int)
    case invalidArgument(option: String, value: String, expected: String)
    /// A format imgproxy writes and this service does not (BMP, ICO, TIFF, HEIC).
    case formatNotWritten(UnwrittenFormat)
    case unknownPreset(String)
    case expired
    /// The source part is missing, or not valid base64url, percent-encoding or UTF-8.
    case invalidSource(String)

    public var code: String {
        switch self {
        case .unknownOption: "unknown-option"
        case .optionNotAllowed, .securityOptionNotAllowed, .presetCount: "option-not-allowed"
        case .invalidArgument: "invalid-argument"
        case .formatNotWritten: "format-not-written"
        case .unknownPreset: "unknown-preset"
        case .expired: "expired"
        case .invalidSource: "invalid-source"
        }
    }

    public var description: String {
        switch self {
        case .unknownOption(let name):
            "unknown option \"\(String(name.prefix(64)))\"; options: \(OptionTable.summary)"
        case .optionNotAllowed(let name):
            "\"\(String(name.prefix(64)))\" is not allowed here: this service serves presets only (NAME or pr:NAME), with its dpr values, f:FORMAT and cb:ANY"
        case .presetCount(let count):
            "this service serves presets only, 1 to \(ImageRequestPath.presetListLimit) a URL (NAME:NAME or pr:NAME); this URL names \(count)"
        case .securityOptionNotAllowed(let name):
            "\"\(String(name.prefix(64)))\" changes a security limit, which this service does not allow in URLs (--allow-security-options)"
        case .invalidArgument(let option, let value, let expected): "\(option): \"\(value)\" is not valid; expected \(expected)"
        case .formatNotWritten(let format):
            "\(format.rawValue) is read but not written here: \(format.reason); ask for \(format.instead.fileExtension) instead"
        case .unknownPreset(let name): "unknown preset \"\(String(name.prefix(64)))\""
        case .expired: "the URL has expired"
        case .invalidSource(let reason): "the source is not valid: \(reason)"
        }
    }
}

import Foundation

/// Why some bytes or text are not a ThumbHash an app can draw. A hash comes from a server's answer,
/// so a bad one is an error to show or log and a cell left plain, never a crash.
public enum ThumbHashError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not standard base64 (the form `/info` and `thumbs.json` write).
    case notBase64
    /// Fewer bytes than the hash's own header says it carries: `needed` is the smallest count that
    /// could hold it (5, the header, when even that is missing).
    case tooShort(count: Int, needed: Int)
    /// The header gives the shorter side no terms at all, so the hash has no shape to draw: no
    /// encoder writes that.
    case noShape

    public var description: String {
        switch self {
        case .notBase64: "the ThumbHash is not base64"
        case .tooShort(let count, let needed): "the ThumbHash has \(count) bytes and needs at least \(needed)"
        case .noShape: "the ThumbHash gives its shorter side no terms, so it has no shape"
        }
    }
}

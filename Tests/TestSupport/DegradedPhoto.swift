import Foundation

/// A seller's bad shot of a fixture, made by `scripts/degrade-photo.py` (Pillow, independent of the
/// pipeline): upright, at most 1024 px, blurred, under- or overexposed, or a re-encoded smaller copy.
public enum DegradedPhoto {
    public enum Kind {
        case sharp, blur(sigma: Double), exposure(stops: Double), copy(scale: Double, quality: Int)

        var arguments: [String] {
            switch self {
            case .sharp: ["sharp"]
            case .blur(let sigma): ["blur", String(sigma)]
            case .exposure(let stops): ["ev", String(stops)]
            case .copy(let scale, let quality): ["copy", String(scale), String(quality)]
            }
        }
    }

    public static let script = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/degrade-photo.py").path

    public static func make(from fixture: String, to path: String, _ kind: Kind) throws {
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", script, Fixture.path(fixture), path] + kind.arguments)
    }
}

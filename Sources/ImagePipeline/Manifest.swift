import Foundation

/// `manifest.json` in the output folder: what was made from what, with which settings. It is what
/// makes reruns incremental, and it is rewritten atomically after every finished photo, so a killed
/// run loses at most the photos that were in flight.
public struct Manifest: Codable, Sendable, Equatable {
    public static let fileName = "manifest.json"

    public struct Output: Codable, Sendable, Equatable {
        public var source: String
        public var sourceFingerprint: String
        public var settingsFingerprint: String
        /// Relative to the output folder.
        public var output: String
        public var bytes: Int
        public var width: Int
        public var height: Int
        public var format: OutputFormat
        public var quality: Int?
        public var encodes: Int
        public var warnings: [String]?
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var source: String
        public var error: String
    }

    public var version = 1
    public var settings: PrepareOptions
    public var outputs: [Output] = []
    public var failures: [Failure] = []

    /// Loads the manifest, or nil when there is none or it cannot be trusted (then everything is redone).
    static func load(from folder: String) -> Manifest? {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: data)
    }

    func save(to folder: String) throws(ImagePipelineError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .outputFailed(path: Self.fileName, reason: "\(error)") }
        try AtomicFile.write(data, to: (folder as NSString).appendingPathComponent(Self.fileName))
    }
}

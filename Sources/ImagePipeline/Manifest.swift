import Foundation

/// `manifest.json` in the output folder: what was made from what, with which settings. It is what
/// makes reruns incremental, and it is rewritten atomically after every finished photo, so a killed
/// run loses at most the photos that were in flight.
public struct Manifest: JSONDocument, Sendable, Equatable {
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
}

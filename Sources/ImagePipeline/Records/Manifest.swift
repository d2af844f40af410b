import Foundation

/// `manifest.json` in the output folder: what was made from what, with which settings. It is what
/// makes reruns incremental. During a run finished photos go to a journal (see `RecordJournal`) and
/// the manifest is written once at the end, so a killed run loses at most the photos in flight.
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
        /// How the photo looks to a buyer: its blur, exposure and near-duplicate hash.
        public var look: PhotoLook?
        /// Its SSIMULACRA2 against the fitted pixels, with `--target-score`.
        public var score: Double?
        /// How it sits in its frame (white edges, the product's box, a border), with `--listing`.
        public var frame: PhotoFrame?
    }

    /// A source that could not be made into its outputs: `error` says why in a sentence, `kind` is
    /// the error's stable code (`damaged`, `too-many-pixels`, …) and `cause` the error itself, for
    /// callers in this process that word their own messages.
    public struct Failure: Codable, Sendable, Equatable {
        public var source: String
        public var error: String
        public var kind: String?
        public var cause: ImagePipelineError?

        public init(source: String, cause: ImagePipelineError) {
            self.source = source
            error = cause.description
            kind = cause.code
            self.cause = cause
        }

        enum CodingKeys: String, CodingKey {
            case source, error, kind
        }
    }

    public var version = 1
    public var settings: PrepareOptions
    public var outputs: [Output] = []
    public var failures: [Failure] = []

    func mappingSources(_ transform: (String) -> String) -> Manifest {
        var copy = self
        for index in copy.outputs.indices { copy.outputs[index].source = transform(copy.outputs[index].source) }
        for index in copy.failures.indices { copy.failures[index].source = transform(copy.failures[index].source) }
        return copy
    }
}

import Foundation

/// What `prepare` is asked to do with a set of inputs.
public struct FolderJob: Sendable {
    public var inputs: [String]
    public var outputFolder: String
    public var options: PrepareOptions
    /// Photos processed at once. Throughput comes from whole images in parallel, one per core.
    public var jobs: Int
    /// Redo every photo even when the manifest says its output is current.
    public var force: Bool
    /// Products with more photos than this are prepared, with a warning (the server's limit).
    public var photosPerProductLimit: Int?

    public init(inputs: [String], outputFolder: String, options: PrepareOptions = PrepareOptions(),
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, force: Bool = false,
                photosPerProductLimit: Int? = nil) {
        self.inputs = inputs
        self.outputFolder = outputFolder
        self.options = options
        self.jobs = jobs
        self.force = force
        self.photosPerProductLimit = photosPerProductLimit
    }
}

/// Progress as it happens, for a terminal display.
public enum FolderEvent: Sendable {
    /// Work is about to start: `pending` photos to process, `upToDate` skipped.
    case planned(pending: Int, upToDate: Int)
    case finished(SourcePhoto, error: String?)
}

/// What a run did, in input order. `--json` prints this.
public struct FolderReport: Sendable, Codable {
    public var outputFolder: String
    public var written: [Manifest.Output] = []
    public var upToDate: [Manifest.Output] = []
    public var failed: [Manifest.Failure] = []
    public var warnings: [String] = []

    public var succeeded: Bool { failed.isEmpty }
}

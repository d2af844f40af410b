import Foundation

/// What a folder run is asked to make: upload images (`prepare`), thumbnails (`thumbs`), or both from
/// the same decode (`prepare --thumbs`).
public struct FolderJob: Sendable {
    public var inputs: [String]
    public var outputFolder: String
    public var prepare: PrepareOptions?
    public var thumbnails: ThumbnailOptions?
    /// Photos processed at once. Throughput comes from whole images in parallel, one per core.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Redo every photo even when the records say its outputs are current.
    public var force = false
    /// Products with more photos than this are processed, with a warning (the server's limit).
    public var photosPerProductLimit: Int?
    /// Remove thumbnails whose source is gone or that current settings no longer make.
    public var prune = false
    /// Report what would be made and pruned; write nothing.
    public var dryRun = false

    public init(inputs: [String], outputFolder: String, prepare: PrepareOptions? = PrepareOptions(),
                thumbnails: ThumbnailOptions? = nil) {
        self.inputs = inputs
        self.outputFolder = outputFolder
        self.prepare = prepare
        self.thumbnails = thumbnails
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
    /// Upload images written this run, and those that were already current.
    public var written: [Manifest.Output] = []
    public var upToDate: [Manifest.Output] = []
    /// Thumbnails made this run, per source, and how many sources' thumbnails were already current.
    public var thumbnailsWritten: [ThumbnailIndex.Entry] = []
    public var thumbnailsUpToDate = 0
    public var failed: [Manifest.Failure] = []
    /// Sources a dry run would process.
    public var wouldProcess: [String] = []
    /// Thumbnail files removed by `prune` (or that a dry run would remove), relative to the output folder.
    public var pruned: [String] = []
    public var warnings: [String] = []
    public var elapsedSeconds = 0.0
    /// The process's peak memory, filled in by callers that can measure it (the CLI).
    public var peakMemoryBytes: Int?
    /// Why the run stopped early (the output folder cannot take more), if it did.
    public var stopped: String?

    public var succeeded: Bool { failed.isEmpty && stopped == nil }
}

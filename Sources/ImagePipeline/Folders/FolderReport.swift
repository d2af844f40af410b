import Foundation

/// What a run did, in input order. `--json` prints this.
public struct FolderReport: Sendable, Codable {
    public var outputFolder: String
    /// Where thumbnails are: the output folder, or its subfolder for `prepare --thumbs`. Thumbnail
    /// paths are relative to it.
    public var thumbnailFolder: String?
    /// Upload images written this run, and those that were already current.
    public var written: [Manifest.Output] = []
    public var upToDate: [Manifest.Output] = []
    /// Thumbnails made this run, per source, and how many sources' thumbnails were already current.
    public var thumbnailsWritten: [ThumbnailIndex.Entry] = []
    public var thumbnailsUpToDate = 0
    public var failed: [Manifest.Failure] = []
    /// Sources a dry run would process.
    public var wouldProcess: [String] = []
    /// Files removed by `prune` (or that a dry run would remove), relative to the output folder.
    public var pruned: [String] = []
    /// Without `prune`: files of photos or settings no longer current, left in place.
    public var orphans: [String] = []
    public var warnings: [String] = []
    /// Photos that repeat an earlier one of their product (a copy or a near-duplicate) or look like
    /// an earlier product's: each prepared all the same, and named so a seller can choose.
    public var duplicates: [PhotoDuplicate] = []
    /// Files that look like photos but are not read (each also a warning).
    public var skipped: [String] = []
    public var elapsedSeconds = 0.0
    /// The process's peak memory, filled in by callers that can measure it (the CLI).
    public var peakMemoryBytes: Int?
    /// Why the run stopped early (the output folder cannot take more), if it did, and how many
    /// photos were left unprocessed.
    public var stopped: String?
    public var stopCause: ImagePipelineError?
    public var notProcessed = 0

    public var succeeded: Bool { failed.isEmpty && stopped == nil }

    enum CodingKeys: String, CodingKey {
        case outputFolder, thumbnailFolder, written, upToDate, thumbnailsWritten, thumbnailsUpToDate, failed, wouldProcess, pruned, orphans
        case warnings, duplicates, skipped, elapsedSeconds, peakMemoryBytes, stopped, notProcessed
    }
}

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
    public static let jobsRange = 1...256
    /// Redo every photo even when the records say its outputs are current.
    public var force = false
    /// Products with more photos than this are processed, with a warning (the server's limit).
    public var photosPerProductLimit: Int?
    /// Each folder input is one product, its subfolders not read (see `ProductScanner`).
    public var inputsAreProducts = false
    /// Remove thumbnails whose source is gone or that current settings no longer make.
    public var prune = false
    /// Report what would be made and pruned; write nothing.
    public var dryRun = false
    /// Where thumbnails go, relative to the output folder: "" for the folder itself (`thumbs`), a
    /// subfolder when upload images share the folder (`prepare --thumbs`), so that a product folder
    /// of upload images holds nothing else.
    public var thumbnailSubfolder = ""
    /// `thumbnailSubfolder` for thumbnails made with upload images (`prepare --thumbs`): apart from
    /// them, so a product folder of upload images can be registered as it is.
    public static let thumbnailsBesideUploads = "thumbnails"

    public init(inputs: [String], outputFolder: String, prepare: PrepareOptions? = PrepareOptions(),
                thumbnails: ThumbnailOptions? = nil) {
        self.inputs = inputs
        self.outputFolder = outputFolder
        self.prepare = prepare
        self.thumbnails = thumbnails
    }

    /// Every setting out of range, across both kinds of output.
    public var problems: [ImagePipelineError] {
        (prepare?.problems ?? []) + (thumbnails?.problems ?? []) + [.outOfRange("jobs", jobs, Self.jobsRange)].compactMap { $0 }
    }
}

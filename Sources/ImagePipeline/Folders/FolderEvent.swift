import Foundation

/// What a run reports as it happens, so a caller can show each photo when it is done rather than
/// when the whole folder is.
public enum FolderEvent: Sendable {
    /// Work is about to start: `pending` photos to process, `upToDate` skipped.
    case planned(pending: Int, upToDate: Int)
    /// One photo is done: what was written for it, or why it failed.
    case finished(PhotoOutcome)
}

/// One processed photo: its upload image and thumbnails as recorded, or its error.
public struct PhotoOutcome: Sendable {
    public var photo: SourcePhoto
    public var output: Manifest.Output?
    public var thumbnails: [Thumbnail] = []
    public var error: ImagePipelineError?
}

import Foundation

/// Progress as it happens, for a terminal display.
public enum FolderEvent: Sendable {
    /// Work is about to start: `pending` photos to process, `upToDate` skipped.
    case planned(pending: Int, upToDate: Int)
    case finished(SourcePhoto, error: String?)
}

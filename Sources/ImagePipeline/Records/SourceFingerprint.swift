import Foundation

/// Identifies a source file's content cheaply, the way make and rsync do: size and modification time
/// to the nanosecond. Reading every byte of 200 photos on each rerun would cost more than it saves.
public enum SourceFingerprint {
    public static func of(_ path: String) -> String? {
        (try? FileStatus.of(path).get()).map(of)
    }

    static func of(_ status: FileStatus) -> String {
        let nanoseconds = String(status.modifiedNanoseconds)
        return "\(status.size)-\(status.modifiedSeconds)." + String(repeating: "0", count: max(0, 9 - nanoseconds.count)) + nanoseconds
    }

    /// As `of`, plus the inode and the status-change time: the service's ETags must change when a
    /// file is replaced by another of the same size and modification time (`cp -p`, `touch -r`),
    /// which a seller's rerun can afford to miss but a cache answering "immutable" cannot.
    public static func identity(of file: OpenFile) -> String {
        let status = file.status
        return of(status) + "-\(status.inode)-\(status.changedSeconds).\(status.changedNanoseconds)"
    }
}

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
}

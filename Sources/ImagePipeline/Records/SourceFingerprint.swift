import Foundation

/// Identifies a source file's content cheaply, the way make and rsync do: size and modification time
/// to the nanosecond. Reading every byte of 200 photos on each rerun would cost more than it saves.
public enum SourceFingerprint {
    public static func of(_ path: String) -> String? {
        guard let status = try? FileStatus.of(path).get() else { return nil }
        return "\(status.size)-\(status.modifiedSeconds).\(String(format: "%09ld", status.modifiedNanoseconds))"
    }
}

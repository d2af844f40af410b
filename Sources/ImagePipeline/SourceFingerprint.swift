import Foundation

/// Identifies a source file's content cheaply, the way make and rsync do: size and modification time
/// to the nanosecond. Reading every byte of 200 photos on each rerun would cost more than it saves.
enum SourceFingerprint {
    static func of(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return "\(info.st_size)-\(time.tv_sec).\(String(format: "%09ld", time.tv_nsec))"
    }
}

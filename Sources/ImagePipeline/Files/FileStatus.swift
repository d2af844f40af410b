import Foundation

/// One `stat(2)` of a path: the kind, size and modification time that readability checks, source
/// fingerprints and up-to-date checks all need.
struct FileStatus: Equatable {
    var isRegularFile: Bool
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    static func of(_ path: String) -> Result<FileStatus, ImagePipelineError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.sourceUnreadable(errno: errno)) }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return .success(FileStatus(isRegularFile: (info.st_mode & S_IFMT) == S_IFREG, size: Int(info.st_size),
                                   modifiedSeconds: Int(time.tv_sec), modifiedNanoseconds: Int(time.tv_nsec)))
    }

    /// The path with every symbolic link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

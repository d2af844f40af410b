import Foundation

/// One `stat(2)` of a path or descriptor: the kind, size, identity and times that readability checks,
/// source fingerprints and up-to-date checks all need.
public struct FileStatus: Equatable, Sendable {
    public var isRegularFile: Bool
    public var size: Int
    public var modifiedSeconds: Int
    public var modifiedNanoseconds: Int
    /// The permission bits (`0o644`), for files that must be their owner's alone.
    public var permissions: Int = 0
    /// The inode and the status-change time: a file replaced by another of the same size and
    /// modification time (`cp -p`, `touch -r`) still differs in these.
    var inode: UInt64 = 0
    var changedSeconds = 0
    var changedNanoseconds = 0

    public static func of(_ path: String) -> Result<FileStatus, ImagePipelineError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.sourceUnreadable(errno: errno)) }
        return .success(FileStatus(info))
    }

    static func of(descriptor: Int32) -> Result<FileStatus, ImagePipelineError> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.sourceUnreadable(errno: errno)) }
        return .success(FileStatus(info))
    }

    private init(_ info: stat) {
        #if canImport(Darwin)
        let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
        let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        self.init(isRegularFile: (info.st_mode & S_IFMT) == S_IFREG, size: Int(info.st_size),
                  modifiedSeconds: Int(modified.tv_sec), modifiedNanoseconds: Int(modified.tv_nsec),
                  inode: UInt64(info.st_ino), changedSeconds: Int(changed.tv_sec), changedNanoseconds: Int(changed.tv_nsec))
        permissions = Int(info.st_mode & 0o7777)
    }

    init(isRegularFile: Bool, size: Int, modifiedSeconds: Int, modifiedNanoseconds: Int,
         inode: UInt64 = 0, changedSeconds: Int = 0, changedNanoseconds: Int = 0) {
        (self.isRegularFile, self.size, self.modifiedSeconds, self.modifiedNanoseconds) = (isRegularFile, size, modifiedSeconds, modifiedNanoseconds)
        (self.inode, self.changedSeconds, self.changedNanoseconds) = (inode, changedSeconds, changedNanoseconds)
    }

    public var modified: Date { Date(timeIntervalSince1970: Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9) }

    /// The path with every symbolic link resolved, or nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

import Foundation

/// Writes files so that a reader, or a process killed at any moment, sees either the old file or the
/// complete new one: bytes go to a hidden temporary file in the same folder, then `rename(2)` swaps it
/// in. Temporaries a killed run left behind carry `tempMarker` and are removed by the next run. Every
/// file the tools write (images, records, the publish ledger) goes through here.
public enum AtomicFile {
    static let tempMarker = ".market-images-tmp-"

    public enum Durability: Sendable {
        /// The bytes and the rename reach the disk before `write` returns: a power cut leaves the old
        /// file or the new one, never an empty file under the final name, and never loses the rename.
        case synced
        /// Atomic against crashes of this process only; for files cheap to remake.
        case atomicOnly
    }

    /// Writes `relative` inside `root`, refusing to follow a symbolic link planted in the output
    /// folder (`root/product -> /somewhere`) out of it.
    public static func write(_ data: Data, to relative: String, in root: String, durability: Durability = .synced) throws(ImagePipelineError) {
        let path = (root as NSString).appendingPathComponent(relative)
        let folder = (path as NSString).deletingLastPathComponent
        try makeFolders(folder)
        guard let realRoot = FileStatus.realPath(root), let realFolder = FileStatus.realPath(folder),
              realFolder == realRoot || realFolder.hasPrefix(realRoot + "/") else {
            throw .outputUnsafe(path: path)
        }
        try write(data, toPath: path, durability: durability)
    }

    /// Writes `path` in a folder that exists.
    public static func write(_ data: Data, toPath path: String, durability: Durability = .synced) throws(ImagePipelineError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temp = (folder as NSString).appendingPathComponent(".\(name)\(tempMarker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        // POSIX calls rather than Data.write, so a failure carries its errno: a full disk must be told
        // apart from a bad name, because it stops a whole run.
        let descriptor = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(path, errno) }
        var status = writeAll(data, to: descriptor)
        if status == 0, durability == .synced, fsync(descriptor) != 0 { status = errno }
        // Closed on every path; a failed close can mean lost data (NFS), so it counts as failure.
        if close(descriptor) != 0, status == 0 { status = errno }
        if status == 0, rename(temp, path) != 0 { status = errno }
        guard status == 0 else {
            unlink(temp)
            throw failure(path, status)
        }
        if durability == .synced { syncFolder(folder) }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return 0
        }
    }

    /// A rename is an update of the folder; until the folder is synced a power cut can undo it.
    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// `mkdir -p`, keeping the errno of what went wrong.
    public static func makeFolders(_ folder: String) throws(ImagePipelineError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue { return }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != folder { try makeFolders(parent) }
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw failure(folder, errno) }
    }

    /// Errors that no other file can escape (full disk, quota, read-only file system) stop a run
    /// instead of failing every remaining photo with the same message.
    private static let folderWide: Set<Int32> = [ENOSPC, EDQUOT, EROFS]

    static func failure(_ path: String, _ code: Int32) -> ImagePipelineError {
        folderWide.contains(code) ? .outputUnavailable(path: path, errno: code) : .outputFailed(path: path, errno: code)
    }

    /// Removes temporaries left by killed runs in `folder` and its subfolders down to `depth` levels
    /// (2: the folder and its product subfolders). In a folder other processes write to, only those
    /// older than `age` seconds: a younger one may be another process's write in progress.
    public static func removeLeftovers(in folder: String, depth: Int = 2, olderThan age: Int = 0) {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: folder) else { return }
        let cutoff = Int(Date().timeIntervalSince1970) - age
        for case let relative as String in enumerator {
            let name = (relative as NSString).lastPathComponent
            let path = (folder as NSString).appendingPathComponent(relative)
            if name.hasPrefix("."), name.contains(tempMarker), age == 0 || ((try? FileStatus.of(path).get())?.modifiedSeconds ?? 0) < cutoff {
                try? manager.removeItem(atPath: path)
            }
            if enumerator.level >= depth { enumerator.skipDescendants() }
        }
    }
}

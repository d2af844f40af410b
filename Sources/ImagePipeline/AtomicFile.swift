import Foundation

/// Writes files so that a reader, or a run killed at any moment, sees either the old file or the
/// complete new one: bytes go to a hidden temporary file in the same folder, then `rename(2)` swaps it
/// in. Temporaries a killed run left behind carry `tempMarker` and are removed by the next run.
enum AtomicFile {
    static let tempMarker = ".market-images-tmp-"

    /// Writes `relative` inside `root`, refusing to follow a symbolic link planted in the output
    /// folder (`root/product -> /somewhere`) out of it.
    static func write(_ data: Data, to relative: String, in root: String) throws(ImagePipelineError) {
        let path = (root as NSString).appendingPathComponent(relative)
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temp = (folder as NSString).appendingPathComponent(
            ".\(name)\(tempMarker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try makeFolders(folder)
        guard let realRoot = realPath(root), let realFolder = realPath(folder),
              realFolder == realRoot || realFolder.hasPrefix(realRoot + "/") else {
            throw .outputFailed(path: path, reason: "a symbolic link in the output folder leads outside it; remove the link")
        }
        // POSIX calls rather than Data.write, so a failure carries its errno: a full disk must read
        // "No space left on device", and stop the run (see `failure`).
        let descriptor = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(path, errno) }
        var written = 0
        let status: Int32 = data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            // On disk before the rename, so a power cut leaves the old file or the new one, never an
            // empty file under the final name.
            guard fsync(descriptor) == 0 else { return errno }
            return close(descriptor) == 0 ? 0 : errno
        }
        if written < data.count { close(descriptor) }
        guard status == 0, rename(temp, path) == 0 else {
            let code = status != 0 ? status : errno
            unlink(temp)
            throw failure(path, code)
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `mkdir -p`, keeping the errno of what went wrong.
    static func makeFolders(_ folder: String) throws(ImagePipelineError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue { return }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != folder { try makeFolders(parent) }
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw failure(folder, errno) }
    }

    /// Errors that no other photo can escape (full disk, quota, read-only file system) stop the run
    /// instead of failing every remaining photo with the same message.
    private static let folderWide: Set<Int32> = [ENOSPC, EDQUOT, EROFS]

    private static func failure(_ path: String, _ code: Int32) -> ImagePipelineError {
        let reason = String(cString: strerror(code))
        return folderWide.contains(code) ? .outputUnavailable(path: path, reason: reason) : .outputFailed(path: path, reason: reason)
    }

    /// Removes temporaries left by killed runs in `folder` and its product subfolders.
    static func removeLeftovers(in folder: String) {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: folder) else { return }
        for case let relative as String in enumerator {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix("."), name.contains(tempMarker) {
                try? manager.removeItem(atPath: (folder as NSString).appendingPathComponent(relative))
            }
            if enumerator.level > 1 { enumerator.skipDescendants() }
        }
    }
}

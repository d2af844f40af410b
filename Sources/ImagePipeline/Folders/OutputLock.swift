import Foundation

/// An exclusive lock on an output folder for the length of a run, so two runs into the same folder
/// cannot interleave their manifest writes. The kernel drops it when the process dies, even by SIGKILL.
///
/// The lock file is removed when the run ends, so the seller's folder holds only outputs. Removing a
/// lock file is safe only with a check on taking it: a run that opened the file just before another
/// removed it holds a lock on a name no longer in the folder, so it takes the lock and then makes sure
/// the name still leads to the file it locked, and tries again if not.
public final class OutputLock: Sendable {
    private let descriptor: Int32
    private let path: String

    public init(folder: String) throws(ImagePipelineError) {
        path = (folder as NSString).appendingPathComponent(".market-images.lock")
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .outputFailed(path: path, errno: errno) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw .outputLocked(directory: folder)
            }
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    deinit {
        unlink(path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

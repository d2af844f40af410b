import Foundation

/// An exclusive lock on an output folder for the length of a run, so two runs into the same folder
/// cannot interleave their manifest writes. The kernel drops it when the process dies, even by SIGKILL.
final class OutputLock {
    private let descriptor: Int32

    init(folder: String) throws(ImagePipelineError) {
        let path = (folder as NSString).appendingPathComponent(".market-images.lock")
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .outputFailed(path: path, errno: errno)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .outputLocked(directory: folder)
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

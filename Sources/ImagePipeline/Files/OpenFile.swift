import Foundation

/// A regular file opened by us, never by libvips: libvips reads a trailing `[...]` in a file name
/// as loader options (`photo.png[fail_on=none]`) and follows symbolic links when it opens a path, so
/// every source reaches it as bytes read from a descriptor that was checked first (`fstat`).
/// Whatever the path named when it was checked is what is read: no check-then-open race.
public final class OpenFile: @unchecked Sendable {
    let descriptor: Int32
    let status: FileStatus

    /// Opens a file to read, following links: which links a product folder may hold is
    /// `ProductScanner`'s rule (none leading out of it), and a file named one by one is the user's choice.
    /// `O_NONBLOCK` keeps a FIFO planted under a photo's name from blocking the open.
    public convenience init(path: String) throws(ImagePipelineError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { throw .sourceUnreadable(errno: errno) }
        try self.init(descriptor: descriptor)
    }

    /// Takes ownership of `descriptor`; refuses anything but a regular file.
    public init(descriptor: Int32) throws(ImagePipelineError) {
        switch FileStatus.of(descriptor: descriptor) {
        case .success(let status) where status.isRegularFile:
            self.descriptor = descriptor
            self.status = status
        case .success:
            close(descriptor)
            throw .sourceUnreadable(errno: nil)
        case .failure(let error):
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    public var size: Int { status.size }
    public var modified: Date { status.modified }
    public var permissions: Int { status.permissions }

    /// Every byte, read from the start whatever was read before. A file that grows while read gives
    /// what it had at `fstat`; one that shrinks gives what is left.
    public func read() throws(ImagePipelineError) -> Data {
        guard status.size > 0 else { throw .emptySource }
        var data = Data(count: status.size)
        var offset = 0
        let failure: Int32? = data.withUnsafeMutableBytes { buffer in
            while offset < buffer.count {
                let count = pread(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { break }
                offset += count
            }
            return nil
        }
        if let failure { throw .sourceUnreadable(errno: failure) }
        guard offset > 0 else { throw .emptySource }
        return offset == data.count ? data : data.prefix(offset)
    }
}

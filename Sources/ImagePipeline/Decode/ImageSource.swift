import Foundation

/// Where a photo comes from: a file, or bytes already in memory (an upload, a download). Both go
/// through the same loaders, limits and checks.
public enum ImageSource: Sendable, Equatable {
    case file(String)
    case data(Data)

    /// The file's name, for attributing libvips' error text; nil for bytes.
    var fileName: String? {
        guard case .file(let path) = self else { return nil }
        return (path as NSString).lastPathComponent
    }

    /// Runs `body` with `data` pinned in memory: libvips' buffer loaders do not copy, so the bytes
    /// must outlive every lazy read of pixels, which `body` must finish (materialise) before returning.
    static func pinning<T>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(ImagePipelineError) -> T) throws(ImagePipelineError) -> T {
        try data.withUnsafeBytes { bytes in
            Result { () throws(ImagePipelineError) in try body(bytes) }
        }.get()
    }

    /// Runs `body` with the file's path, or with the bytes pinned (see `pinning`): for C calls that
    /// take either.
    func withLocation<T>(_ body: (String?, UnsafeRawBufferPointer?) throws(ImagePipelineError) -> T) throws(ImagePipelineError) -> T {
        switch self {
        case .file(let path): try body(path, nil)
        case .data(let data): try Self.pinning(data) { bytes throws(ImagePipelineError) in try body(nil, bytes) }
        }
    }
}

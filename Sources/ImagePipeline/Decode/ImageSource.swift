import Foundation

/// Where a photo comes from: a file, or bytes already in memory (an upload, a download). Both go
/// through the same loaders, limits and checks, and libvips only ever sees bytes: a file is opened
/// and read here (`OpenFile`), so no name reaches a parser that would interpret it.
public enum ImageSource: Sendable {
    case file(String)
    /// A file already opened and checked (the service's sources under its root): read only when
    /// its pixels are needed, so a cache hit or a revalidation never reads it.
    case opened(OpenFile)
    case data(Data)

    /// The file's name, for attributing libvips' error text; nil for bytes.
    var fileName: String? {
        guard case .file(let path) = self else { return nil }
        return (path as NSString).lastPathComponent
    }

    /// How many bytes it has, from the file's status for a file already opened.
    public var byteCount: Int? {
        switch self {
        case .file: nil
        case .opened(let file): file.size
        case .data(let data): data.count
        }
    }

    /// The source's bytes: a file is opened and read once.
    public func bytes() throws(ImagePipelineError) -> Data {
        switch self {
        case .file(let path): try OpenFile(path: path).read()
        case .opened(let file): try file.read()
        case .data(let data): data
        }
    }

    /// Runs `body` with `data` pinned in memory: libvips' buffer loaders do not copy, so the bytes
    /// must outlive every lazy read of pixels, which `body` must finish (materialise) before returning.
    static func pinning<T>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(ImagePipelineError) -> T) throws(ImagePipelineError) -> T {
        try data.withUnsafeBytes { bytes in
            Result { () throws(ImagePipelineError) in try body(bytes) }
        }.get()
    }
}

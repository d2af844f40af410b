import Foundation

/// One image to upload: bytes in memory (straight from `ImagePipeline`) or a file streamed from disk.
public struct UploadImage: Sendable, Equatable {
    public var filename: String
    public var content: MultipartFormData.Content

    public init(filename: String, data: Data) {
        self.filename = filename
        content = .data(data)
    }

    public init(file: URL, filename: String? = nil) {
        self.filename = filename ?? file.lastPathComponent
        content = .file(file)
    }

    /// Size and first bytes, enough to check the server's rules without reading a whole file.
    func probe() throws -> (byteCount: Int, leadingBytes: Data) {
        switch content {
        case .data(let data):
            return (data.count, data.prefix(16))
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            return (Int(size), try handle.read(upToCount: 16) ?? Data())
        }
    }
}

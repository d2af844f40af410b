import Foundation

/// One image to upload: its file name and bytes (straight from `ImagePipeline`, or read once from a
/// prepared file).
public struct UploadImage: Sendable, Equatable {
    public var filename: String
    public var data: Data

    public init(filename: String, data: Data) {
        self.filename = filename
        self.data = data
    }

    /// Reads the file once; every check and the request itself use these bytes.
    public init(file: URL, filename: String? = nil) throws {
        self.init(filename: filename ?? file.lastPathComponent, data: try Data(contentsOf: file))
    }
}

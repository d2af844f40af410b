import Foundation

/// Turns one photo file into an upload-ready image: the library entry point the CLI and uploader share.
///
/// Data flows one way: file → `DecodedImage` (upright, sRGB, in memory) → `EncodedImage` (stripped,
/// under budget). Callers that need more outputs from the same photo (thumbnails) decode once and
/// pass the `DecodedImage` on.
public struct ImagePreparer: Sendable {
    public let options: PrepareOptions

    public init(options: PrepareOptions = PrepareOptions()) {
        self.options = options
    }

    public func prepare(file path: String) throws(ImagePipelineError) -> EncodedImage {
        try encode(try decode(file: path), stem: Self.stem(of: path))
    }

    public func decode(file path: String) throws(ImagePipelineError) -> DecodedImage {
        try DecodedImage.decode(file: path, maxPixels: options.maxPixels) { _ in (options.maxEdge, options.maxEdge) }
    }

    public func encode(_ decoded: DecodedImage, stem: String) throws(ImagePipelineError) -> EncodedImage {
        try BudgetEncoder(options: options).encode(decoded, stem: stem)
    }

    static func stem(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }
}

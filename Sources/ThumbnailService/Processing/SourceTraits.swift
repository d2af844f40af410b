import ImagePipeline

/// What the output's format depends on in a source, read from its header once (and kept in a remote
/// source's record, so an ETag needs no download): its own format when the service writes it, its
/// transparency, and whether it is an animation. `OutputPlanner` keeps the format, or picks one with
/// transparency or animation, by imgproxy's preferred-formats rule.
public struct SourceTraits: Sendable, Equatable, Codable {
    /// nil for a format the service reads and never writes (HEIC, TIFF).
    public var format: OutputFormat?
    public var hasAlpha: Bool
    /// A GIF or WebP of several frames.
    public var animated: Bool

    public init(format: OutputFormat?, hasAlpha: Bool, animated: Bool) {
        (self.format, self.hasAlpha, self.animated) = (format, hasAlpha, animated)
    }

    public init(_ header: ImageHeader) {
        self.init(format: header.outputFormat, hasAlpha: header.hasAlpha, animated: header.isAnimation)
    }
}


/// One encoded thumbnail and where it belongs.
public struct Thumbnail: Sendable, Equatable, Codable {
    public var variant: String
    public var scale: Int
    /// Relative to the output folder.
    public var path: String
    public var width: Int
    public var height: Int
    public var bytes: Int
}

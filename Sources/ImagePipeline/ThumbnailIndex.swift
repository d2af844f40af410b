import Foundation

/// `thumbs.json` in the output folder: per source photo, its thumbnails with path, size and bytes.
/// An app can load it to find a product's thumbnails; reruns use it to skip what is current.
public struct ThumbnailIndex: JSONDocument, Sendable, Equatable {
    public static let fileName = "thumbs.json"

    public struct Entry: Codable, Sendable, Equatable {
        public var source: String
        public var sourceFingerprint: String
        public var settingsFingerprint: String
        public var product: String
        public var thumbnails: [Thumbnail]
    }

    public var version = 1
    public var settings: ThumbnailOptions
    public var sources: [Entry] = []
}

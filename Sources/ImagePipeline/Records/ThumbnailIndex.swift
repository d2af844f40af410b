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
        /// What a cell shows while a thumbnail loads; absent in indexes written before it existed.
        public var placeholder: Placeholder?
    }

    public var version = 1
    public var settings: ThumbnailOptions
    public var sources: [Entry] = []
    /// Every variant name ever made into this folder: pruning only ever deletes files of these
    /// variants, never a user's own `something.name@2x.jpg`.
    public var variantNames: Set<String> = []

    enum CodingKeys: String, CodingKey {
        case version, settings, sources, variantNames
    }

    func mappingSources(_ transform: (String) -> String) -> ThumbnailIndex {
        var copy = self
        for index in copy.sources.indices { copy.sources[index].source = transform(copy.sources[index].source) }
        return copy
    }

    init(settings: ThumbnailOptions) {
        self.settings = settings
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        settings = try container.decode(ThumbnailOptions.self, forKey: .settings)
        sources = try container.decode([Entry].self, forKey: .sources)
        variantNames = try container.decodeIfPresent(Set<String>.self, forKey: .variantNames)
            ?? Set(sources.flatMap { $0.thumbnails.map(\.variant) })
    }

    /// Variant names sorted: a set's order differs between runs, and the same index must give the
    /// same bytes, or an unchanged rerun would rewrite it.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(settings, forKey: .settings)
        try container.encode(sources, forKey: .sources)
        try container.encode(variantNames.sorted(), forKey: .variantNames)
    }
}

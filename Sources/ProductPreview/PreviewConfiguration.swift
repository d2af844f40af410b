import Foundation
import MarketUploader
import Publishing

/// What a preview shows and how: the products folder, the photo cache its photos are prepared into
/// (the one `publish` uploads from), and the server whose publish record it compares with.
public struct PreviewConfiguration: Sendable {
    public var productsFolder: String
    public var photoCache: PhotoCache
    /// The server whose publish record the pages compare with; nil shows no publish state.
    public var server: URL?
    /// That server's dialect (whether photos can change): as given, or else known from its host name
    /// (`Dialect.inferred(from:)`); nil: unknown.
    public var dialect: Dialect?
    /// Reads `server` (no credentials: reads need none), so the pages compare each folder with what
    /// the server holds, as `publish` plans; nil compares with the publish record only.
    public var client: OpenMarketClient?
    /// How errors are worded on the pages: a host with flags of its own says what to do in them.
    public var describe: @Sendable (any Error) -> String = { "\($0)" }

    public init(productsFolder: String, photoCache: PhotoCache, server: URL? = nil, dialect: Dialect? = nil) {
        self.productsFolder = productsFolder
        self.photoCache = photoCache
        self.server = server
        self.dialect = dialect ?? server.flatMap(Dialect.inferred(from:))
    }
}

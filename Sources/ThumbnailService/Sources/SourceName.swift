import Foundation

/// Whether a text can be a source of the service at all, checked without one: what `url` asks of
/// each line it turns into a thumbnail URL, by the same rules the service applies.
public enum SourceName {
    /// Why `text` can never be a source, or nil: a source is `local:///` and a path under the root,
    /// an http(s) URL the service could fetch, or an s3://BUCKET/KEY object. Whether it is allowed is the service's to say.
    public static func problem(with text: String) -> String? {
        if text.hasPrefix(LocalSourceRoot.scheme) {
            return LocalSourceRoot.relativePath(text) == nil ? "a local source is local:/// and a path under the root, without . or .. segments" : nil
        }
        if text.lowercased().hasPrefix("http://") || text.lowercased().hasPrefix("https://") {
            return SourceURL(text) == nil ? "not a URL the service can fetch (a host, no user or password, no encoded slashes, nothing above its root)" : nil
        }
        if text.hasPrefix(ObjectKey.scheme) {
            do { _ = try ObjectKey(parsing: text) } catch { return error.description }
            return nil
        }
        return "not a source: give local:///PATH, an http(s) URL or s3://BUCKET/KEY"
    }
}

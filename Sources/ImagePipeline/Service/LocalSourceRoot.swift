import Foundation

/// The folder `local:///…` sources are served from. A source resolves to a regular file inside the
/// root or to nothing: `..`, absolute escapes, NUL and symbolic links leading out are all "not found",
/// and the check is on the real path of the file itself, so no read ever happens outside the root.
public struct LocalSourceRoot: Sendable {
    public static let scheme = "local://"
    /// The root's real path.
    public let path: String

    public init(_ root: String) throws(ImagePipelineError) {
        guard let real = FileStatus.realPath(root), (try? FileStatus.of(real).get()).map({ !$0.isRegularFile }) ?? false else {
            throw .sourceUnreadable(errno: ENOENT)
        }
        path = real
    }

    /// The file `source` names inside the root, or nil. `source` is the decoded URL from the request
    /// path, e.g. `local:///sku-1/IMG_1.jpg`.
    public func resolve(_ source: String) -> String? {
        guard source.hasPrefix(Self.scheme) else { return nil }
        let relative = source.dropFirst(Self.scheme.count)
        guard relative.hasPrefix("/"), !relative.contains("\0"),
              !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        guard let real = FileStatus.realPath(path + relative), real.hasPrefix(path + "/"),
              (try? FileStatus.of(real).get())?.isRegularFile == true else { return nil }
        return real
    }
}

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

    /// A file found under the root: its real path, a fingerprint of its content (size and
    /// modification time, as `SourceFingerprint`) and when it changed, from one `stat`.
    public struct File: Sendable {
        public var path: String
        public var fingerprint: String
        public var modified: Date
    }

    /// The file `source` names inside the root, or nil. `source` is the decoded URL from the request
    /// path, e.g. `local:///sku-1/IMG_1.jpg`.
    public func resolve(_ source: String) -> File? {
        guard source.hasPrefix(Self.scheme) else { return nil }
        let relative = source.dropFirst(Self.scheme.count)
        guard relative.hasPrefix("/"), !relative.contains("\0"),
              !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        guard let real = FileStatus.realPath(path + relative), real.hasPrefix(path + "/"),
              let status = try? FileStatus.of(real).get(), status.isRegularFile else { return nil }
        let modified = Date(timeIntervalSince1970: Double(status.modifiedSeconds) + Double(status.modifiedNanoseconds) / 1e9)
        return File(path: real, fingerprint: SourceFingerprint.of(status), modified: modified)
    }
}

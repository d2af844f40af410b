import Foundation
import ImagePipeline

/// The folder `local:///…` sources are served from. A source resolves to a regular file inside the
/// root or to nothing: `..`, absolute escapes, NUL and symbolic links leading out are all "not found".
/// The check is on the real path of the file itself (links that stay inside are followed), and the
/// file is then opened along that real path from a descriptor of the root, one component at a time
/// with `O_NOFOLLOW`: a link swapped in after the check fails the open instead of being followed,
/// and what is read is the file that was checked, handed on as bytes (see `OpenFile`).
public struct LocalSourceRoot: Sendable {
    public static let scheme = "local://"
    /// The root's real path.
    public let path: String
    /// Larger files are refused (413) before they are read: what one request may hold in memory.
    public let maxBytes: Int
    private let root: OpenFolder
    /// Where a service counts the bytes read from the root.
    var metrics: ServiceMetrics?
    /// The `local://` prefixes of `--allow-source` (imgproxy's `IMGPROXY_ALLOWED_SOURCES`), matched
    /// against a file's real name under the root; none: the whole root.
    var allowedPrefixes: [String] = []

    public init(_ root: String, maxBytes: Int = .max) throws(ImagePipelineError) {
        guard let real = FileStatus.realPath(root) else { throw .sourceUnreadable(errno: ENOENT) }
        let descriptor = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .sourceUnreadable(errno: errno) }
        path = real
        self.maxBytes = maxBytes
        self.root = OpenFolder(descriptor: descriptor)
    }

    /// A file found under the root and opened: a fingerprint of its content and identity (size,
    /// modification and change times, inode: see `SourceFingerprint`) and when it changed, from one
    /// `fstat` of the open file.
    public struct File: Sendable {
        /// `local:///` and the file's real path under the root: one name however the URL spelt it.
        public var name: String
        public var file: OpenFile
        public var fingerprint: String
        public var modified: Date
    }

    /// The file `source` names inside the root, opened, or nil. `source` is the decoded URL from the
    /// request path, e.g. `local:///sku-1/IMG_1.jpg`.
    public func file(named source: String) -> File? {
        guard let relative = Self.relativePath(source) else { return nil }
        // A name without links is its own real path: opened one component at a time with O_NOFOLLOW,
        // nothing is followed, so it is tried first. Only a name through a link pays for realpath(3),
        // an lstat of every component of the root's path too, and is opened along what it found.
        var inside = relative.split(separator: "/")
        var file = root.open(beneath: inside)
        if file == nil {
            let prefix = path == "/" ? path : path + "/"
            guard let real = FileStatus.realPath(path + relative), real.hasPrefix(prefix) else { return nil }
            inside = real.dropFirst(prefix.count).split(separator: "/")
            file = root.open(beneath: inside)
        }
        guard let file else { return nil }
        return File(name: Self.scheme + "/" + inside.joined(separator: "/"), file: file, fingerprint: SourceFingerprint.identity(of: file),
                    modified: file.modified)
    }

    /// `/sku-1/IMG_1.jpg` for `local:///sku-1/IMG_1.jpg`; nil for what can never name a file under a
    /// root (no `/` after the scheme, a `/` at the end, NUL, `.` or `..` segments).
    static func relativePath(_ source: String) -> Substring? {
        guard source.hasPrefix(scheme) else { return nil }
        let relative = source.dropFirst(scheme.count)
        guard relative.hasPrefix("/"), relative.count > 1, !relative.hasSuffix("/"), !relative.contains("\0"),
              !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        return relative
    }
}

extension LocalSourceRoot: SourceKind {
    func claims(_ name: String) -> Bool { name.hasPrefix(Self.scheme) }

    func resolve(_ name: String) async throws(ServiceFailure) -> any ResolvedSource {
        guard let file = file(named: name) else {
            throw ServiceFailure(status: .notFound, error: "source-not-found", detail: "no such image under the served root")
        }
        let parts = file.name.split(separator: "/", omittingEmptySubsequences: false)
        guard allowedPrefixes.isEmpty || allowedPrefixes.contains(where: { Wildcard.matchesPrefix($0.split(separator: "/", omittingEmptySubsequences: false), parts) }) else {
            throw ServiceFailure.sourceNotAllowed
        }
        guard file.file.size <= maxBytes else { throw ServiceFailure.sourceTooLarge(limit: maxBytes) }
        return LocalSource(file: file, metrics: metrics)
    }
}

/// A folder held open for the life of the service, so files are opened relative to it.
private final class OpenFolder: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The regular file at `components` below this folder, refusing a symbolic link at any step.
    func open(beneath components: [Substring]) -> OpenFile? {
        guard let name = components.last else { return nil }
        var folder = descriptor
        defer { if folder != descriptor { close(folder) } }
        for component in components.dropLast() {
            let next = openat(folder, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if folder != descriptor { close(folder) }
            folder = next
            guard folder >= 0 else { return nil }
        }
        let file = openat(folder, String(name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard file >= 0 else { return nil }
        return try? OpenFile(descriptor: file)
    }
}

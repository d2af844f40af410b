import Foundation

/// A bucket and a key in it, from `s3://bucket/key` or a cache's `s3://bucket/prefix`: the bucket
/// by S3's naming rules (3 to 63 of `a-z 0-9 . -`), the key as bytes, encoded into the request's
/// path one byte at a time (`SigV4Signer.uriEncode`, keeping `/`), so `?`, `#`, `%` and spaces are
/// part of the key and never a query or a fragment, and the path names this bucket's object only.
/// A `.` or `..` segment is refused outright: S3 would take it literally, but a proxy or a store's
/// own HTTP stack may resolve it into another bucket.
struct ObjectKey: Sendable, Hashable {
    static let scheme = "s3://"
    let bucket: String
    let key: String

    init?(bucket: String, key: String) {
        guard Self.isBucketName(bucket), !key.isEmpty, key.utf8.count <= 1024, !key.contains("\0"),
              !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        (self.bucket, self.key) = (bucket, key)
    }

    /// `s3://bucket/key`, the key everything after the bucket's `/`, as decoded from the image URL.
    init?(_ name: String) {
        guard name.hasPrefix(Self.scheme) else { return nil }
        let rest = name.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        self.init(bucket: String(rest[..<slash]), key: String(rest[rest.index(after: slash)...]))
    }

    /// The key as it goes in the path: each byte but unreserved ones and `/` percent-encoded.
    var encodedKey: String { SigV4Signer.uriEncode(key, keepingSlashes: true) }

    /// `s3://bucket/` and the encoded key: one name however the URL spelt it, for ETags and records.
    var name: String { Self.scheme + bucket + "/" + encodedKey }

    static func isBucketName(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && name.first.map { $0.isLetter || $0.isNumber } == true && name.last.map { $0.isLetter || $0.isNumber } == true && !name.contains("..")
    }
}

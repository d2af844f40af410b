import Foundation

/// A bucket and a key in it, from `s3://bucket/key` or a cache's `s3://bucket/prefix`: the bucket
/// by S3's naming rules (3 to 63 of `a-z 0-9 . -`), the key as bytes, encoded into the request's
/// path one byte at a time (`SigV4Signer.uriEncode`, keeping `/`), so `?`, `#`, `%` and spaces are
/// part of the key and never a query or a fragment, and the path names this bucket's object only.
/// A `.` or `..` segment is refused outright: S3 would take it literally, but a proxy or a store's
/// own HTTP stack may resolve it into another bucket.
struct ObjectKey: Sendable, Hashable {
    static let scheme = "s3://"
    /// S3's own limit on a key's length, in bytes.
    static let maxKeyBytes = 1024
    let bucket: String
    let key: String

    /// Why a name is no object's, in words for a 404's detail.
    enum Invalid: Error, Equatable, CustomStringConvertible {
        case notS3, bucketName, noKey, keyTooLong(bytes: Int), nul, dotSegment

        var description: String {
            switch self {
            case .notS3, .noKey: "an s3 source is s3://BUCKET/KEY"
            case .bucketName: "an s3 source's bucket name is 3 to 63 of a-z, 0-9, . and -"
            case .keyTooLong(let bytes): "the key is \(bytes) bytes long; S3's keys are \(ObjectKey.maxKeyBytes) at most"
            case .nul: "the key holds a NUL byte, which no S3 key can"
            case .dotSegment: "the key has a . or .. segment, which a proxy or the store could resolve into another bucket"
            }
        }
    }

    init(bucket: String, validating key: String) throws(Invalid) {
        guard Self.isBucketName(bucket) else { throw .bucketName }
        guard !key.isEmpty else { throw .noKey }
        guard key.utf8.count <= Self.maxKeyBytes else { throw .keyTooLong(bytes: key.utf8.count) }
        guard !key.contains("\0") else { throw .nul }
        guard !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else { throw .dotSegment }
        (self.bucket, self.key) = (bucket, key)
    }

    init?(bucket: String, key: String) {
        try? self.init(bucket: bucket, validating: key)
    }

    /// `s3://bucket/key`, the key everything after the bucket's `/`, as decoded from the image URL.
    init(parsing name: String) throws(Invalid) {
        guard name.hasPrefix(Self.scheme) else { throw .notS3 }
        let rest = name.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { throw .noKey }
        try self.init(bucket: String(rest[..<slash]), validating: String(rest[rest.index(after: slash)...]))
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

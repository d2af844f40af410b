import Foundation

// `s3://` names as `SourceURL`s: the bucket as the host (its dot-separated labels matched as a
// host's are, `*` within one), the encoded key's segments as the path, no port. So an
// `--allow-source s3://bucket/folder/` prefix is matched by parts as an http(s) one is, and the
// source cache, the per-origin slots (one origin per bucket) and ETags take s3 sources unchanged.
extension SourceURL {
    init(_ object: ObjectKey) {
        scheme = "s3"
        host = object.bucket
        port = 0
        segments = object.encodedKey.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        query = nil
    }

    /// `s3://bucket/` or `s3://bucket/folder/`: a bucket (a `*` may stand within a dot-separated
    /// part) and a path that ends with `/` or a name's beginning. The path is matched as the key's
    /// bytes are, encoded, so a `*`, `?` or `#` in it could only ever match itself: refused, as a
    /// prefix that would allow nothing meant (`s3://photos/d*/`, `s3://photos/?`).
    init?(s3Prefix text: String) {
        guard text.hasPrefix(ObjectKey.scheme) else { return nil }
        let rest = text.dropFirst(ObjectKey.scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let bucket = String(rest[..<slash]), path = String(rest[rest.index(after: slash)...])
        guard ObjectKey.isBucketName(bucket.replacingOccurrences(of: "*", with: "x")) || bucket == "*",
              !path.contains(where: { "*?#".contains($0) }), ObjectKey(bucket: "placeholder", key: path + "x") != nil else { return nil }
        scheme = "s3"
        host = bucket
        port = 0
        segments = SigV4Signer.uriEncode(path, keepingSlashes: true).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        query = nil
    }

    /// The object this URL names (the inverse of `init(_:)`).
    var objectKey: ObjectKey? {
        guard scheme == "s3", let key = segments.joined(separator: "/").removingPercentEncoding else { return nil }
        return ObjectKey(bucket: host, key: key)
    }
}

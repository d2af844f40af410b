import Foundation

/// Which objects `s3://` sources may name, as imgproxy decides it: under an `s3://` prefix of
/// `--allow-source` (`s3://` alone: any bucket of the store, imgproxy's own example), then in the
/// allowed buckets when some are listed (`IMGPROXY_S3_ALLOWED_BUCKETS`), and in no denied one
/// (`IMGPROXY_S3_DENIED_BUCKETS`). The prefixes are the allow-list; the bucket lists only narrow it,
/// by exact name as imgproxy compares them.
struct S3SourceRule: Sendable {
    let prefixes: [SourceURL]
    let everyBucket: Bool
    let allowedBuckets: Set<String>
    let deniedBuckets: Set<String>

    init(_ configuration: ServiceConfiguration) {
        prefixes = configuration.allowedSources.compactMap { SourceURL(s3Prefix: $0) }
        everyBucket = configuration.allowedSources.contains(ObjectKey.scheme)
        allowedBuckets = Set(configuration.s3AllowedBuckets)
        deniedBuckets = Set(configuration.s3DeniedBuckets)
    }

    func allows(_ url: SourceURL) -> Bool {
        guard url.scheme == "s3", allowedBuckets.isEmpty || allowedBuckets.contains(url.host), !deniedBuckets.contains(url.host) else { return false }
        return everyBucket || prefixes.contains(where: url.isUnder)
    }
}

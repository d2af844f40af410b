/// Where one remote kind's sources come from (`OriginClient` for http(s), `S3Origin` for
/// `s3://`): which names it takes, which it allows, and one download. `RemoteSources` adds what
/// every remote kind has: the source cache, one download per source at a time, slots per origin
/// and in all, stale copies while the origin fails.
protocol SourceOrigin: Sendable {
    /// The kind's name in metrics (`remote`, `s3`).
    var kind: String { get }
    func claims(_ name: String) -> Bool
    /// The name normalised, when it is under an allowed prefix; otherwise 404 `source-not-allowed`.
    func allowed(_ name: String) throws(ServiceFailure) -> SourceURL
    /// The bytes with their validators, or that the copy `validators` describes is still good,
    /// within the origin's deadline; or the failure with the status it deserves.
    func download(_ source: SourceURL, validators: SourceCache.Record?) async throws(ServiceFailure) -> OriginClient.Fetched
}

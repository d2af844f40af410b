/// Where the image handler leaves how the caches were involved (`hit`, `miss`, `revalidated`), for
/// the request's log line: set and read within the request's own task.
final class CacheOutcome: @unchecked Sendable {
    var text = "-"
    @TaskLocal static var current: CacheOutcome?
}

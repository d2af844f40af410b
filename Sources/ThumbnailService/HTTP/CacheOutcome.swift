import ImagePipeline

/// Where the image handler leaves how the caches were involved (`hit`, `miss`, `revalidated`), for
/// the request's log line. The handler runs in tasks of its own (`ShutdownGrace`, `ClientDepartures`),
/// one of which may still be finishing after a 503 for the grace has been answered and logged, so the
/// text is read and written under a lock (ThreadSanitizer reported the race).
final class CacheOutcome: Sendable {
    private let value = Locked("-")
    @TaskLocal static var current: CacheOutcome?

    var text: String {
        get { value.current }
        set { value.withLock { $0 = newValue } }
    }
}

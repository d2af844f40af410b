import Prometheus

/// The service's Prometheus metrics: requests by status and in flight, processing time, cache
/// outcomes, the queue, connections, and bytes in and out. Each service has a registry of its own
/// rather than the process-wide metrics system, so several can run in one process (tests, or a server
/// mounting two); `MetricsResponder` renders it.
struct ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge
    private let processing: DurationHistogram
    private let sourceBytes: Counter
    private let bytesOut: Counter

    init() {
        inFlight = registry.makeGauge(name: "market_images_requests_in_flight")
        processing = registry.makeDurationHistogram(name: "market_images_processing_seconds", buckets: [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ])
        sourceBytes = registry.makeCounter(name: "market_images_source_bytes_total")
        bytesOut = registry.makeCounter(name: "market_images_bytes_out_total")
    }

    /// Requests being answered now.
    func inFlight(_ change: Int) { inFlight.increment(by: Double(change)) }

    func request(status: Int) {
        registry.makeCounter(name: "market_images_requests_total", labels: [("status", String(status))]).increment()
    }

    func processed(_ duration: Duration) { processing.record(duration) }

    func cache(_ outcome: String) {
        registry.makeCounter(name: "market_images_cache_total", labels: [("outcome", outcome)]).increment()
    }

    /// Values read when `/metrics` is scraped.
    func scraped(queueDepth: Int, evictions: Int, connections: Int, shed: Int) {
        for (name, value) in [("queue_depth", queueDepth), ("cache_evictions", evictions), ("connections", connections), ("connections_shed", shed)] {
            registry.makeGauge(name: "market_images_" + name).set(Double(value))
        }
    }

    /// How a remote source was had: `fresh` (the cached copy, no origin request), `downloaded`,
    /// `revalidated` (the origin answered 304) or `stale` (the origin failed; the copy was served).
    func source(_ outcome: String) {
        registry.makeCounter(name: "market_images_sources_total", labels: [("outcome", outcome)]).increment()
    }

    func sourceBytes(_ count: Int) { sourceBytes.increment(by: Int64(count)) }

    func bytesOut(_ count: Int) { bytesOut.increment(by: Int64(count)) }

    func render() -> String { registry.emitToString() }
}

import ImagePipeline
import Prometheus

/// The service's Prometheus metrics: requests by status and in flight, processing time, cache
/// outcomes, the queue and the renders running or stopped, connections, and bytes in and out. Each service has a registry of its own
/// rather than the process-wide metrics system, so several can run in one process (tests, or a server
/// mounting two); `MetricsResponder` renders it. Every metric is named, with its help line, once here.
struct ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge
    private let processing: DurationHistogram
    private let bytesOut: Counter
    /// Totals kept by the cache and the connection limiter, as last reported to their counters.
    private let reported = Locked((evictions: 0, shed: 0))

    private static func name(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "market_images", metricName: metric, unitName: unit, helpText: help)
    }

    private static var requests: MetricNameDescriptor { name("requests", unit: "total", "Requests answered, by status.") }
    private static var cacheOutcomes: MetricNameDescriptor { name("cache", unit: "total", "Image requests by output cache outcome (hit or miss).") }
    private static var sources: MetricNameDescriptor {
        name("sources", unit: "total", "Remote sources by how they were had: fresh, downloaded, revalidated or stale.")
    }
    private static var sourceBytes: MetricNameDescriptor {
        name("source_bytes", unit: "total", "Source bytes had: downloaded from origins (kind remote) or read from the root (kind local).")
    }
    private static var evictions: MetricNameDescriptor { name("cache_evictions", unit: "total", "Outputs evicted from the disk cache.") }
    private static var stopped: MetricNameDescriptor {
        name("renders_stopped", unit: "total", "Renders given up: at --render-timeout (reason timeout), or when every client waiting for one left (reason client-gone; a queued one is dropped unstarted).")
    }
    private static var shed: MetricNameDescriptor {
        name("connections_shed", unit: "total", "Connections closed at once because --max-connections were open.")
    }

    init() {
        inFlight = registry.makeGauge(descriptor: Self.name("requests_in_flight", "Requests being answered now."))
        processing = registry.makeDurationHistogram(descriptor: Self.name("processing", unit: "seconds", "Time to render an output, decode to encode."), buckets: [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ])
        bytesOut = registry.makeCounter(descriptor: Self.name("bytes_out", unit: "total", "Image bytes sent."))
    }

    /// Requests being answered now.
    func inFlight(_ change: Int) { inFlight.increment(by: Double(change)) }

    func request(status: Int) {
        registry.makeCounter(descriptor: Self.requests, labels: [("status", String(status))]).increment()
    }

    func processed(_ duration: Duration) { processing.record(duration) }

    func cache(_ outcome: String) {
        registry.makeCounter(descriptor: Self.cacheOutcomes, labels: [("outcome", outcome)]).increment()
    }

    /// Values read when `/metrics` is scraped: two gauges, and the growth of two totals kept
    /// elsewhere added to their counters (counters only rise, so rates and resets work).
    func scraped(queueDepth: Int, running: Int, evictions: Int, connections: Int, shed: Int) {
        registry.makeGauge(descriptor: Self.name("queue_depth", "Renders waiting for a worker.")).set(Double(queueDepth))
        registry.makeGauge(descriptor: Self.name("renders_running", "Renders on a worker now.")).set(Double(running))
        registry.makeGauge(descriptor: Self.name("connections", "Connections open now.")).set(Double(connections))
        let growth = reported.withLock { last in
            defer { last = (max(last.evictions, evictions), max(last.shed, shed)) }
            return (evictions: max(0, evictions - last.evictions), shed: max(0, shed - last.shed))
        }
        registry.makeCounter(descriptor: Self.evictions).increment(by: Int64(growth.evictions))
        registry.makeCounter(descriptor: Self.shed).increment(by: Int64(growth.shed))
    }

    /// How a remote source was had: `fresh` (the cached copy, no origin request), `downloaded`,
    /// `revalidated` (the origin answered 304) or `stale` (the origin failed; the copy was served).
    func source(_ outcome: String) {
        registry.makeCounter(descriptor: Self.sources, labels: [("outcome", outcome)]).increment()
    }

    func sourceBytes(_ count: Int, kind: String) {
        registry.makeCounter(descriptor: Self.sourceBytes, labels: [("kind", kind)]).increment(by: Int64(count))
    }

    /// A render given up (`reason` timeout or client-gone).
    func stopped(_ reason: String) {
        registry.makeCounter(descriptor: Self.stopped, labels: [("reason", reason)]).increment()
    }

    func bytesOut(_ count: Int) { bytesOut.increment(by: Int64(count)) }

    func render() -> String { registry.emitToString() }
}

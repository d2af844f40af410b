import Metrics
import Prometheus

/// The service's Prometheus metrics, through swift-metrics: requests by status, processing time,
/// cache outcomes, the queue, connections, and bytes in and out. `MetricsResponder` renders the registry.
struct ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    func bootstrap() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    /// Requests being answered now.
    func inFlight(_ change: Int) {
        Meter(label: "market_images_requests_in_flight").increment(by: Double(change))
    }

    func request(status: Int) {
        Counter(label: "market_images_requests_total", dimensions: [("status", String(status))]).increment()
    }

    func processed(_ duration: Duration) {
        Metrics.Timer(label: "market_images_processing_seconds").record(duration: duration)
    }

    func cache(_ outcome: String) {
        Counter(label: "market_images_cache_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// Values read when `/metrics` is scraped.
    func scraped(queueDepth: Int, evictions: Int, connections: Int, shed: Int) {
        Gauge(label: "market_images_queue_depth").record(queueDepth)
        Gauge(label: "market_images_cache_evictions").record(evictions)
        Gauge(label: "market_images_connections").record(connections)
        Gauge(label: "market_images_connections_shed").record(shed)
    }

    func sourceBytes(_ count: Int) {
        Counter(label: "market_images_source_bytes_total").increment(by: count)
    }

    func bytesOut(_ count: Int) {
        Counter(label: "market_images_bytes_out_total").increment(by: count)
    }

    func render() -> String { registry.emitToString() }
}

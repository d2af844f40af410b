import ImagePipeline
import Prometheus

/// The service's Prometheus metrics: requests by status and in flight, processing time, cache
/// outcomes, the queue and the renders running or stopped, connections, and bytes in and out, as
/// `market_images_*`; and beside them imgproxy's own set under imgproxy's names (its docs,
/// monitoring/prometheus.mdx), prefixed by `--metrics-namespace` as by `IMGPROXY_PROMETHEUS_NAMESPACE`,
/// so a dashboard moved from imgproxy reads them unchanged. Each service has a registry of its own
/// rather than the process-wide metrics system, so several can run in one process (tests, or a server
/// mounting two); `MetricsResponder` renders it. Every metric is named, with its help line, once here.
struct ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge
    private let processing: DurationHistogram
    private let bytesOut: Counter
    /// Totals kept by the cache and the connection limiter, as last reported to their counters.
    private let reported = Locked((evictions: 0, shed: 0, cpu: 0.0))
    /// imgproxy's namespace (none by default, as imgproxy's).
    private let namespace: String?
    private let requestsInProgress = Locked(0)
    /// imgproxy's metrics touched on every request, made once: the answer path looks nothing up.
    private let imgproxyInProgress: Gauge
    private let imgproxyRequests: Counter
    private let imgproxyDuration: DurationHistogram
    /// The two counters of each status answered, ours and imgproxy's, made on its first request:
    /// looking them up in the registry took a label array and a name on every request.
    private let byStatus = Locked([Int: (ours: Counter, imgproxy: Counter)]())

    private static func name(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "market_images", metricName: metric, unitName: unit, helpText: help)
    }

    /// One of imgproxy's metrics, by its name.
    private func imgproxy(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        Self.imgproxy(namespace, metric, unit: unit, help)
    }

    private static func imgproxy(_ namespace: String?, _ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
    }

    private static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    private static var requests: MetricNameDescriptor { name("requests", unit: "total", "Requests answered, by status.") }
    private static var cacheOutcomes: MetricNameDescriptor { name("cache", unit: "total", "Image requests by output cache outcome: hit (memory or folder), remote-hit (the bucket) or miss.") }
    private static var sources: MetricNameDescriptor {
        name("sources", unit: "total", "Remote sources by how they were had: fresh, downloaded, revalidated or stale.")
    }
    private static var sourceBytes: MetricNameDescriptor {
        name("source_bytes", unit: "total", "Source bytes had: downloaded from origins (kind remote), read from a bucket (kind s3) or read from the root (kind local).")
    }
    private static var storeOperations: MetricNameDescriptor {
        name("cache_store", unit: "total", "Reads and writes of the bucket cache by outcome: hit, miss, stored, torn (a checksum that failed: a miss), failed (down, slow, refused) or skipped (while it fails).")
    }
    private static var evictions: MetricNameDescriptor { name("cache_evictions", unit: "total", "Outputs evicted from the disk cache.") }
    private static var stopped: MetricNameDescriptor {
        name("renders_stopped", unit: "total", "Renders given up: at --render-timeout (reason timeout), or when every client waiting for one left (reason client-gone; a queued one is dropped unstarted).")
    }
    private static var shed: MetricNameDescriptor {
        name("connections_shed", unit: "total", "Connections closed at once because --max-connections were open.")
    }

    init(namespace: String? = nil) {
        self.namespace = namespace
        inFlight = registry.makeGauge(descriptor: Self.name("requests_in_flight", "Requests being answered now."))
        processing = registry.makeDurationHistogram(descriptor: Self.name("processing", unit: "seconds", "Time a worker spent on an image, decode to encode (or to an info answer)."),
                                                    buckets: Self.durationBuckets)
        bytesOut = registry.makeCounter(descriptor: Self.name("bytes_out", unit: "total", "Image bytes sent."))
        imgproxyInProgress = registry.makeGauge(descriptor: Self.imgproxy(namespace, "requests_in_progress", "Requests being answered now."))
        imgproxyRequests = registry.makeCounter(descriptor: Self.imgproxy(namespace, "requests", unit: "total", "Requests answered."))
        imgproxyDuration = registry.makeDurationHistogram(descriptor: Self.imgproxy(namespace, "request_duration", unit: "seconds", "Time to answer a request."),
                                                          buckets: Self.durationBuckets)
        for type in ServiceFailure.imgproxyErrorTypes { _ = errors(type) }
    }

    /// Requests being answered now.
    func inFlight(_ change: Int) {
        inFlight.increment(by: Double(change))
        let count = requestsInProgress.withLock { $0 += change; return $0 }
        imgproxyInProgress.set(Double(count))
    }

    /// A request answered: by status, and in imgproxy's total, status codes and latency.
    func request(status: Int, duration: Duration) {
        let counters = byStatus.withLock { made in
            if let counters = made[status] { return counters }
            let labels = [("status", String(status))]
            let counters = (ours: registry.makeCounter(descriptor: Self.requests, labels: labels),
                            imgproxy: registry.makeCounter(descriptor: imgproxy("status_codes", unit: "total", "Requests answered, by status."), labels: labels))
            made[status] = counters
            return counters
        }
        counters.ours.increment()
        counters.imgproxy.increment()
        imgproxyRequests.increment()
        imgproxyDuration.record(duration)
    }

    /// A worker's time on an image (imgproxy's `processing` span), after `queued` waiting for it.
    func processed(_ duration: Duration, queued: Duration) {
        processing.record(duration)
        span("processing", duration)
        span("queue", queued)
    }

    /// imgproxy's spans: `queue`, `downloading`, `processing`.
    func span(_ span: String, _ duration: Duration) {
        registry.makeDurationHistogram(descriptor: imgproxy("request_span_duration", unit: "seconds", "Time a request spent waiting for a worker (queue), reading its source from the origin (downloading, each read), and on the worker (processing)."),
                                       labels: [("span", span)], buckets: Self.durationBuckets).record(duration)
    }

    /// A failed request by imgproxy's error type: `timeout`, `downloading` or `processing`.
    func error(_ type: String) { errors(type).increment() }

    private func errors(_ type: String) -> Counter {
        registry.makeCounter(descriptor: imgproxy("errors", unit: "total", "Requests failed, by type: timeout, downloading or processing."), labels: [("type", type)])
    }

    func cache(_ outcome: String) {
        registry.makeCounter(descriptor: Self.cacheOutcomes, labels: [("outcome", outcome)]).increment()
    }

    /// One read or write of the bucket cache (`BucketCache`) and how it went.
    func cacheStore(_ operation: String, _ outcome: String) {
        registry.makeCounter(descriptor: Self.storeOperations, labels: [("operation", operation), ("outcome", outcome)]).increment()
    }

    /// Values read when `/metrics` is scraped: two gauges, and the growth of two totals kept
    /// elsewhere added to their counters (counters only rise, so rates and resets work).
    func scraped(queueDepth: Int, running: Int, workers: Int, evictions: Int, connections: Int, shed: Int) {
        registry.makeGauge(descriptor: Self.name("queue_depth", "Renders waiting for a worker.")).set(Double(queueDepth))
        registry.makeGauge(descriptor: Self.name("renders_running", "Renders on a worker now.")).set(Double(running))
        registry.makeGauge(descriptor: imgproxy("workers", "Images processed at once at most (--workers).")).set(Double(workers))
        registry.makeGauge(descriptor: imgproxy("images_in_progress", "Images on a worker now.")).set(Double(running))
        registry.makeGauge(descriptor: imgproxy("workers_utilization", "requests_in_progress / workers * 100, as imgproxy computes it."))
            .set(Double(requestsInProgress.current) / Double(max(1, workers)) * 100)
        let vips = VipsRuntime.trackedMemory
        registry.makeGauge(descriptor: imgproxy("vips_memory", unit: "bytes", "Bytes libvips holds in its own allocations.")).set(Double(vips.bytes))
        registry.makeGauge(descriptor: imgproxy("vips_max_memory", unit: "bytes", "The most bytes libvips has held in its own allocations.")).set(Double(vips.highWater))
        registry.makeGauge(descriptor: imgproxy("vips_allocs", "libvips allocations held now.")).set(Double(vips.allocations))
        registry.makeGauge(descriptor: Self.name("connections", "Connections open now.")).set(Double(connections))
        let process = ProcessFigures.read()
        let growth = reported.withLock { last in
            defer { last = (max(last.evictions, evictions), max(last.shed, shed), max(last.cpu, process.cpuSeconds)) }
            return (evictions: max(0, evictions - last.evictions), shed: max(0, shed - last.shed), cpu: max(0, process.cpuSeconds - last.cpu))
        }
        registry.makeCounter(descriptor: Self.evictions).increment(by: Int64(growth.evictions))
        registry.makeCounter(descriptor: Self.shed).increment(by: Int64(growth.shed))
        // The standard process metrics, unprefixed as every client library writes them.
        registry.makeCounter(descriptor: Self.process("cpu_seconds", unit: "total", "User and system CPU time spent, in seconds.")).increment(by: growth.cpu)
        for (metric, help, value) in [("resident_memory_bytes", "Resident memory size in bytes.", process.residentBytes),
                                      ("virtual_memory_bytes", "Virtual memory size in bytes.", process.virtualBytes),
                                      ("open_fds", "Open file descriptors.", process.openFiles),
                                      ("max_fds", "The most file descriptors the process may open.", process.maxFiles),
                                      ("start_time_seconds", "Start of the process since the Unix epoch, in seconds.", process.startTime)] {
            if let value { registry.makeGauge(descriptor: Self.process(metric, help)).set(value) }
        }
    }

    private static func process(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "process", metricName: metric, unitName: unit, helpText: help)
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

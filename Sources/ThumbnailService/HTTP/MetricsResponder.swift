import Hummingbird
import ImagePipeline

/// `GET /metrics` in Prometheus' text format, on its own listener (`metricsBind`, loopback by
/// default), as imgproxy keeps its Prometheus port apart: queue depth, cache size and connection
/// counts are nobody's business on the public address.
struct MetricsResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let metrics: ServiceMetrics
    let pool: ImageWorkPool
    let cache: DiskCache?
    let connections: ConnectionLimit

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.uri.path == "/metrics", request.method == .get || request.method == .head else {
            return ServiceFailure(status: .notFound, error: "not-found", detail: "only GET /metrics here").response
        }
        return HTTPAnswer.text(render(), type: "text/plain; version=0.0.4", method: request.method)
    }

    func render() -> String {
        let (open, shed) = connections.counts
        metrics.scraped(queueDepth: pool.queued, running: pool.running, workers: pool.workers, evictions: cache?.evictions ?? 0, connections: open, shed: shed)
        return metrics.render()
    }
}

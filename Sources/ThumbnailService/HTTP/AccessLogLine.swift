import Hummingbird

/// The access log's line, one per request: method, path, status, bytes, milliseconds and cache
/// outcome. Public so a server mounting the service (the preview) logs its own routes alike.
public enum AccessLogLine {
    public static func text(_ request: Request, _ response: Response, since started: ContinuousClock.Instant, outcome: String = "-", path: String? = nil) -> String {
        // Tenths of a millisecond by integer arithmetic: `String(format:)` was a visible share of a hit.
        let tenths = Int(((ContinuousClock.now - started) / .microseconds(100)).rounded())
        let bytes = response.headers[.contentLength] ?? "0"
        let quality = response.headers[HTTPAnswer.quality].map { " quality=" + $0.replacingOccurrences(of: "; ", with: ",") } ?? ""
        return "\(request.method) \(path ?? request.uri.path) \(response.status.code) \(bytes) B \(tenths / 10).\(tenths % 10) ms cache=\(outcome)" + quality
    }
}

import Hummingbird

/// The access log's line, one per request: method, path, status, bytes, milliseconds and cache
/// outcome. Public so a server mounting the service (the preview) logs its own routes alike.
public enum AccessLogLine {
    /// Bytes of a path logged; the rest is counted, not written. A refusal costs the client a
    /// request but the log a line as long as its path: 500 requests with 64 KB paths wrote 32 MB.
    public static let maxPathBytes = 512

    public static func text(_ request: Request, _ response: Response, since started: ContinuousClock.Instant, outcome: String = "-", path: String? = nil) -> String {
        // Tenths of a millisecond by integer arithmetic: `String(format:)` was a visible share of a hit.
        let tenths = Int(((ContinuousClock.now - started) / .microseconds(100)).rounded())
        let bytes = response.headers[.contentLength] ?? "0"
        let quality = response.headers[HTTPAnswer.quality].map { " quality=" + $0.replacingOccurrences(of: "; ", with: ",") } ?? ""
        return "\(request.method) \(capped(path ?? request.uri.path)) \(response.status.code) \(bytes) B \(tenths / 10).\(tenths % 10) ms cache=\(outcome)" + quality
    }

    /// The line of a request the HTTP parser refused (answered 400 before it had a method or path).
    static func refused(_ error: some Error) -> String {
        "- - 400 0 B 0.0 ms cache=- refused=\(String(describing: error).prefix(80))"
    }

    /// The path's first `maxPathBytes` bytes and how many were left out (`/a…/…[+64488 bytes]`).
    static func capped(_ path: String) -> String {
        let utf8 = path.utf8
        guard utf8.count > maxPathBytes else { return path }
        return String(decoding: utf8.prefix(maxPathBytes), as: UTF8.self) + "…[+\(utf8.count - maxPathBytes) bytes]"
    }
}

import Foundation
import ImagePipeline
import HTTPTypes
import Hummingbird

/// How the service's answers are built, in one place: bodies with their length, image headers,
/// `If-None-Match`, dates. Public so a server mounting the service (the preview) answers alike.
public enum HTTPAnswer {
    /// `data` as the body (none for HEAD), with its type, length and `nosniff`.
    public static func body(_ data: Data, type: String, headers: inout HTTPFields, method: HTTPRequest.Method, status: HTTPResponse.Status = .ok) -> Response {
        headers[.contentType] = type
        noSniff(&headers)
        headers[.contentLength] = String(data.count)
        return Response(status: status, headers: headers, body: method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Plain text that is never cached (`/health`, `/metrics`).
    static func text(_ text: String, type: String = "text/plain; charset=utf-8", method: HTTPRequest.Method = .get) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-cache"
        return body(Data(text.utf8), type: type, headers: &headers, method: method)
    }

    /// `X-Content-Type-Options: nosniff`, on every answer (a 304 too, which a cache merges into the
    /// stored one): a browser shows it only as the type named, never as the HTML or script a hostile
    /// source's bytes could be read as.
    static func noSniff(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
    }

    /// An image's headers before its body: the ETag, immutable caching, `Vary: Accept` when the
    /// format was negotiated, and `Last-Modified` for local files.
    static func imageHeaders(etag: String, maxAge: Int, negotiated: Bool, modified: Date?) -> HTTPFields {
        var headers = HTTPFields()
        noSniff(&headers)
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=\(maxAge), immutable"
        if negotiated { headers[.vary] = "Accept" }
        if let modified { headers[.lastModified] = httpDate(modified) }
        return headers
    }

    /// `X-Quality`: the quality an `autoquality` search chose, and the score it reached
    /// (`q=71; ssimulacra2=80.4`, and `; chroma=444` for a JPEG it made 4:4:4); nil for a fixed quality.
    static let quality = HTTPField.Name("X-Quality")!

    static func qualityHeader(_ image: EncodedImage) -> String? {
        guard image.encodes > 1 || image.score != nil, let quality = image.quality else { return nil }
        return "q=\(quality)" + (image.score.map { "; ssimulacra2=\(($0 * 10).rounded() / 10)" } ?? "") + (image.fullChroma ? "; chroma=444" : "")
    }

    /// Whether an `If-None-Match` list names `etag`: weak comparison (RFC 9110 §13.1.2), so `W/"x"`
    /// matches `"x"`, and `*` matches anything.
    public static func matches(_ ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.filter { $0 != " " && $0 != "\t" }
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110's date (`Sun, 06 Nov 1994 08:49:37 GMT`), by hand: `DateFormatter` was a visible share
    /// of a revalidation's time.
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

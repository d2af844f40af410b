import Foundation
import Hummingbird
import ImagePipeline

/// An answer other than an image: the status the failure deserves and a JSON body
/// `{"error": …, "detail": …}` that names the problem without paths outside the request, stack
/// traces or secrets. Never cached. Each is made with the status it deserves, where the failure is
/// found.
public struct ServiceFailure: Error, Sendable {
    public let status: HTTPResponse.Status
    public let error: String
    public let detail: String
    var retryAfter: Int?

    public init(status: HTTPResponse.Status, error: String, detail: String) {
        self.status = status
        self.error = error
        self.detail = detail
    }

    /// 503 with `Retry-After: 1`: nothing is wrong with the request, and asking again in a moment
    /// may well work (a slot frees, a copy settles, another instance answers).
    static func unavailable(_ error: String, _ detail: String) -> ServiceFailure {
        var failure = ServiceFailure(status: .serviceUnavailable, error: error, detail: detail)
        failure.retryAfter = 1
        return failure
    }

    /// 400 for a malformed request; 404 for a preset that does not exist or a URL that expired.
    init(_ failure: ProcessingError) {
        switch failure {
        case .unknownPreset, .expired: self.init(status: .notFound, error: failure.code, detail: failure.description)
        default: self.init(status: .badRequest, error: failure.code, detail: failure.description)
        }
    }

    init(_ failure: ImagePipelineError) {
        let status: HTTPResponse.Status = switch failure {
        case .tooManyPixels: .contentTooLarge
        case .unsupportedFormat, .blockedFormat: .unsupportedMediaType
        case .damaged, .emptySource, .cannotFitBudget, .productNotFound: .unprocessableContent
        case .sourceUnreadable: .notFound
        case .invalidOption: .badRequest
        // A render stopped at its deadline is imgproxy's timeout: 503.
        case .overloaded, .outOfMemory, .timedOut: .serviceUnavailable
        // Nobody waits for the answer: nginx's "client closed request", for the access log.
        case .cancelled: HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
        case .libraryUnavailable, .processingFailed, .encodeFailed, .outputFailed, .outputUnavailable, .outputUnsafe, .outputLocked,
             .backgroundModelMissing, .backgroundUnavailable, .backgroundModelUnusable:
            .internalServerError
        }
        // libvips' own words and output errors can name server-side paths; the client gets the kind.
        let detail = switch failure {
        case .damaged(let format, _): ImagePipelineError.damaged(format: format, detail: "").description
        case _ where status == .internalServerError: "the image could not be processed"
        default: failure.description
        }
        self.init(status: status, error: failure.code, detail: detail)
        switch failure {
        case .overloaded: retryAfter = 1
        case .outOfMemory: retryAfter = 10
        default: break
        }
    }

    /// A source outside `--allow-source`'s prefixes, or on an address not allowed: as if absent.
    static let sourceNotAllowed = ServiceFailure(status: .notFound, error: "source-not-allowed", detail: "the source is not under an allowed prefix or address")

    /// A source over `--max-source-bytes`, local or remote: refused before (or while) it is read.
    static func sourceTooLarge(limit: Int) -> ServiceFailure {
        ServiceFailure(status: .contentTooLarge, error: "source-too-large", detail: "the source is over \(limit) bytes")
    }

    /// imgproxy's type of the failure for its `errors_total`: the render stopped at its deadline
    /// (`timeout`); the source missing, failing at its origin or refused by its size or type, as
    /// imgproxy's download and its checks fail (`downloading`); the image failing to decode, render or
    /// encode (`processing`); nil for a refused request, which imgproxy does not count either.
    var imgproxyErrorType: String? {
        switch error {
        case "timed-out": "timeout"
        case "origin-error", "origin-timeout", "source-not-found", "unreadable", "empty", "source-too-large", "too-many-pixels", "unsupported-format",
             "blocked-format": "downloading"
        case "damaged", "too-costly", "cannot-fit-budget", "processing-failed", "encode-failed", "output-failed", "out-of-memory": "processing"
        default: nil
        }
    }

    /// imgproxy's types of `errors_total`, each counted from 0 so a dashboard has the series at once.
    static let imgproxyErrorTypes = ["timeout", "downloading", "processing"]

    public var response: Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(["error": error, "detail": detail])) ?? Data()
        return HTTPAnswer.body(body, type: "application/json", headers: &headers, method: .get, status: status)
    }
}

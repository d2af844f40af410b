import Foundation

/// Why a request to the object store failed, in words that say what to look at. Never holds a
/// signature, a key's secret or the store's error body (which echoes the string signed).
enum ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection (refused, reset, DNS): the endpoint is down or wrong.
    case unreachable
    /// No whole answer within the store's deadline.
    case timedOut(seconds: Double)
    /// The body passed `limit` bytes.
    case tooLarge(limit: Int)
    /// The store's refusal: its status and S3 error code (`AccessDenied`, `NoSuchBucket`).
    case refused(status: Int, code: String?)

    var description: String {
        switch self {
        case .unreachable: "the object store could not be reached: check --s3-endpoint (IMGPROXY_S3_ENDPOINT) and that the store is up"
        case .timedOut(let seconds): "the object store did not answer within \(String(format: "%g", seconds)) s"
        case .tooLarge(let limit): "the object is larger than \(limit) bytes"
        case .refused(let status, let code):
            switch status {
            case 403: "the object store refused access (403 \(code ?? "Forbidden")): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (a wrong secret is a 403 too) and the bucket's policy"
            case 301, 307: "the bucket is in another region (\(status) \(code ?? "")): set --s3-region (IMGPROXY_S3_REGION) to the bucket's"
            default: "the object store answered \(status)\(code.map { " \($0)" } ?? "")"
            }
        }
    }

    /// A short label for metrics and the log: `unreachable`, `timeout`, `too-large`, `status-403`.
    var label: String {
        switch self {
        case .unreachable: "unreachable"
        case .timedOut: "timeout"
        case .tooLarge: "too-large"
        case .refused(let status, _): "status-\(status)"
        }
    }
}

import Crypto
import Foundation
import ImagePipeline

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`), the one signing every S3 API accepts: no S3 SDK is
/// among the packages the service can depend on, so the few requests it makes are signed here.
/// Checked against AWS's published test suite (`Tests/Fixtures/sigv4/aws4_testsuite`) and against
/// botocore's signatures for the same S3 requests (`Tests/Fixtures/sigv4/botocore.json`).
///
/// S3's form: the path is signed as it is sent (each segment encoded once, never normalised; an
/// object's key may hold `..` or `//` of its own), and the payload's SHA-256 is sent and signed as
/// `x-amz-content-sha256`, so the store refuses a body that changed on the way.
struct SigV4Signer: Sendable {
    let credentials: AWSCredentials
    let region: String
    let service: String

    /// What a signature covers: method, the path as sent (already percent-encoded), the query's
    /// decoded pairs, every header sent (names in any case) and the payload's hex SHA-256.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)]
        var payloadHash: String
    }

    /// The headers to add to `request` to sign it at `date`: `x-amz-date`, the session token if
    /// any, and `authorization` last (the others are signed with the rest).
    func signingHeaders(for request: Request, at date: Date) -> [(name: String, value: String)] {
        var request = request
        let timestamp = Self.timestamp(date)
        var added = [(name: "x-amz-date", value: timestamp)]
        if let token = credentials.sessionToken { added.append((name: "x-amz-security-token", value: token)) }
        request.headers += added
        let scope = "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
        let (canonical, signedHeaders) = Self.canonicalRequest(request)
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, Self.hexSHA256(Data(canonical.utf8))].joined(separator: "\n")
        let signature = Fingerprint.hex(bytes: HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: String(timestamp.prefix(8)))))
        added.append((name: "authorization",
                      value: "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"))
        return added
    }

    /// The key of one day, region and service: HMAC chained from `AWS4` and the secret.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The canonical request and its signed-headers list: header names lower-cased and sorted,
    /// values trimmed with inner runs of spaces made one, repeated names joined by commas; the query
    /// encoded and sorted by name, then value.
    static func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers {
            let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            headers[name.lowercased(), default: []].append(collapsed.trimmingCharacters(in: .whitespaces))
        }
        let names = headers.keys.sorted()
        let pairs: [(name: String, value: String)] = request.query.map { (uriEncode($0.name), uriEncode($0.value)) }
        let sorted = pairs.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let query = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let lines = [request.method, request.path, query] + names.map { "\($0):\(headers[$0]!.joined(separator: ","))" }
            + ["", names.joined(separator: ";"), request.payloadHash]
        return (lines.joined(separator: "\n"), names.joined(separator: ";"))
    }

    /// RFC 3986 encoding as SigV4 defines it: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`
    /// (upper-case hex); a `/` too unless `keepingSlashes` (an object key's path).
    static func uriEncode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    static func hexSHA256(_ data: Data) -> String { Fingerprint.hex(bytes: SHA256.hash(data: data)) }

    /// `20150830T123600Z`: the request's time in UTC, as `x-amz-date` and the scope take it.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let two = { (value: Int?) in String(value ?? 0).leftPadded(to: 2) }
        return String(parts.year ?? 1970) + two(parts.month) + two(parts.day) + "T" + two(parts.hour) + two(parts.minute) + two(parts.second) + "Z"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

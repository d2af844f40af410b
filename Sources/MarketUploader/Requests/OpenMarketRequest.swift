import Foundation

/// An HTTP request ready to send, or to show with `--dry-run`.
public struct OpenMarketRequest: Sendable {
    public enum Body: Sendable {
        case none
        case json(Data)
        case multipart(MultipartFormData)
    }

    public var method: String
    public var url: URL
    /// In order; `Content-Type` and `Content-Length` are derived from the body.
    public var headers: [(name: String, value: String)]
    public var body: Body

    public var contentType: String? {
        switch body {
        case .none: nil
        case .json: "application/json"
        case .multipart(let form): form.contentType
        }
    }

    /// The exact bytes sent.
    public var bodyData: Data {
        switch body {
        case .none: Data()
        case .json(let data): data
        case .multipart(let form): form.encoded()
        }
    }

    /// The request as text: method, URL, headers, and the body with binary parts summarised.
    /// Secrets are redacted unless `showSecrets`.
    public func rendered(credentials: Credentials?, showSecrets: Bool = false) -> String {
        var lines = ["\(method) \(url.absoluteString)"]
        var allHeaders = headers
        if let contentType { allHeaders.append(("Content-Type", contentType)) }
        // The length of a body that carries a secret would tell the secret's length.
        let bytes = bodyData
        let holdsSecret = credentials?.secrets.contains { !$0.isEmpty && bytes.range(of: Data($0.utf8)) != nil } ?? false
        allHeaders.append(("Content-Length", holdsSecret && !showSecrets ? "<redacted>" : String(bytes.count)))
        lines += allHeaders.map { "\($0.name): \($0.value)" }
        lines.append("")
        switch body {
        case .none:
            break
        case .json(let data):
            lines.append(String(decoding: data, as: UTF8.self))
        case .multipart(let form):
            for part in form.parts {
                lines.append(String(decoding: MultipartFormData.head(of: part, boundary: form.boundary), as: UTF8.self)
                    .replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .newlines))
                lines.append("")
                lines.append(Self.summary(of: part))
            }
            lines.append("--\(form.boundary)--")
        }
        let text = lines.joined(separator: "\n")
        return credentials?.redact(text, show: showSecrets) ?? text
    }

    private static func summary(of part: MultipartFormData.Part) -> String {
        part.filename == nil ? String(decoding: part.data, as: UTF8.self) : "<\(part.data.count) bytes of \(part.contentType ?? "data")>"
    }
}

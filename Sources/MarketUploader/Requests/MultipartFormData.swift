import Foundation

/// A `multipart/form-data` body (RFC 7578 over RFC 2046), built so that the mistakes real OpenMarket
/// clients made cannot happen: every delimiter is `--boundary` on its own CRLF-terminated line, the
/// last one ends `--boundary--`, each part's headers end with an empty line, one boundary serves
/// header and body, and the boundary is checked not to occur in any part.
///
/// Parts are bytes in memory: the server takes at most five images of 300 KB, so a whole request is
/// under 2 MB, and sending from memory avoids FoundationNetworking's crash on a connection reset
/// during an upload from a file.
public struct MultipartFormData: Sendable {
    public struct Part: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var data: Data

        public init(name: String, filename: String? = nil, contentType: String? = nil, data: Data) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.data = data
        }

        public static func text(_ name: String, _ value: String) -> Part {
            Part(name: name, data: Data(value.utf8))
        }
    }

    public let parts: [Part]
    public let boundary: String

    /// Builds the body with a fresh random boundary, drawing again in the (astronomically unlikely)
    /// case that it occurs inside a part. A given boundary is used as is, but still checked.
    public init(parts: [Part], boundary: String? = nil) throws(MultipartError) {
        self.parts = parts
        if let boundary {
            guard Self.isValidBoundary(boundary) else { throw MultipartError.invalidBoundary(boundary) }
            guard !Self.occurs(boundary, inAnyOf: parts) else { throw MultipartError.boundaryInContent(boundary) }
            self.boundary = boundary
            return
        }
        for _ in 0..<8 {
            let candidate = "market-images-" + (0..<24).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
            if !Self.occurs(candidate, inAnyOf: parts) {
                self.boundary = candidate
                return
            }
        }
        throw MultipartError.boundaryInContent("eight random boundaries in a row")
    }

    /// The request's `Content-Type` header: the same boundary as the body, after `boundary=`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The whole body.
    public func encoded() -> Data {
        var body = Data()
        for part in parts {
            body.append(Self.head(of: part, boundary: boundary))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Self.closing(boundary))
        return body
    }

    /// `--boundary`, the part's headers, and the empty line that ends them.
    static func head(of part: Part, boundary: String) -> Data {
        var lines = ["--\(boundary)"]
        var disposition = "Content-Disposition: form-data; name=\"\(escape(part.name))\""
        if let filename = part.filename { disposition += "; filename=\"\(escape(filename))\"" }
        lines.append(disposition)
        // A media type is a token, never a quoted string: `Content-Type: "image/jpeg"` is rejected.
        if let type = part.contentType { lines.append("Content-Type: \(type)") }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    static func closing(_ boundary: String) -> Data {
        Data("--\(boundary)--\r\n".utf8)
    }

    /// Escapes a name or filename the way browsers do (WHATWG HTML, "multipart/form-data encoding"):
    /// `"` becomes %22 and CR, LF become %0D, %0A, so no value can end the quoted string or start a
    /// header of its own. Other characters, Korean included, go through as UTF-8, as RFC 7578 asks.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// RFC 2046: 1–70 characters from a restricted set, not ending in a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = CharacterSet(charactersIn: "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        return (1...70).contains(boundary.count) && !boundary.hasSuffix(" ")
            && boundary.unicodeScalars.allSatisfy(allowed.contains)
    }

    private static func occurs(_ boundary: String, inAnyOf parts: [Part]) -> Bool {
        let needle = Data(boundary.utf8)
        return parts.contains { part in
            Data(part.name.utf8).range(of: needle) != nil || part.data.range(of: needle) != nil
                || part.filename.map { Data($0.utf8).range(of: needle) != nil } == true
        }
    }
}

public enum MultipartError: Error, Equatable, CustomStringConvertible {
    case invalidBoundary(String)
    case boundaryInContent(String)

    public var description: String {
        switch self {
        case .invalidBoundary(let boundary): "\"\(boundary)\" is not a valid multipart boundary (RFC 2046: 1–70 safe characters)"
        case .boundaryInContent(let boundary): "the multipart boundary \(boundary) occurs inside a part"
        }
    }
}

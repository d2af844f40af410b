import Foundation

/// A `multipart/form-data` body (RFC 7578 over RFC 2046), built so that the mistakes real OpenMarket
/// clients made cannot happen: every delimiter is `--boundary` on its own CRLF-terminated line, the
/// last one ends `--boundary--`, each part's headers end with an empty line, one boundary serves
/// header and body, and the boundary is checked not to occur in any part.
///
/// File parts are streamed from disk when the body is written, so a request never holds every
/// image twice in memory; `contentLength` is exact without building the body.
public struct MultipartFormData: Sendable {
    public enum Content: Sendable, Equatable {
        case data(Data)
        case file(URL)
    }

    public struct Part: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var content: Content

        public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }

        public static func text(_ name: String, _ value: String) -> Part {
            Part(name: name, content: .data(Data(value.utf8)))
        }
    }

    public let parts: [Part]
    public let boundary: String

    /// Builds the body with a fresh random boundary, drawing again in the (astronomically unlikely)
    /// case that it occurs inside a part. A given boundary is used as is, but still checked.
    public init(parts: [Part], boundary: String? = nil) throws {
        self.parts = parts
        if let boundary {
            guard Self.isValidBoundary(boundary) else { throw MultipartError.invalidBoundary(boundary) }
            guard try !Self.occurs(boundary, inAnyOf: parts) else { throw MultipartError.boundaryInContent(boundary) }
            self.boundary = boundary
            return
        }
        for _ in 0..<8 {
            let candidate = "market-images-" + (0..<24).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
            if try !Self.occurs(candidate, inAnyOf: parts) {
                self.boundary = candidate
                return
            }
        }
        throw MultipartError.boundaryInContent("eight random boundaries in a row")
    }

    /// The request's `Content-Type` header: the same boundary as the body, after `boundary=`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public var contentLength: Int {
        get throws {
            try parts.reduce(Self.closing(boundary).count) { total, part in
                total + Self.head(of: part, boundary: boundary).count + (try Self.size(of: part.content)) + 2
            }
        }
    }

    /// The whole body in memory.
    public func encoded() throws -> Data {
        var body = Data()
        try write { body.append($0) }
        return body
    }

    /// Streams the body to a file, reading file parts in chunks: what an iOS background upload
    /// session needs, since it only uploads from files.
    public func write(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw MultipartError.unreadable(url.path, "cannot create the request body file")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try write { try handle.write(contentsOf: $0) }
    }

    private func write(_ emit: (Data) throws -> Void) throws {
        for part in parts {
            try emit(Self.head(of: part, boundary: boundary))
            switch part.content {
            case .data(let data):
                try emit(data)
            case .file(let url):
                try Self.chunks(of: url, emit)
            }
            try emit(Data("\r\n".utf8))
        }
        try emit(Self.closing(boundary))
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

    private static func occurs(_ boundary: String, inAnyOf parts: [Part]) throws -> Bool {
        let needle = Data(boundary.utf8)
        for part in parts {
            if Data(part.name.utf8).range(of: needle) != nil || part.filename.map({ Data($0.utf8).range(of: needle) != nil }) == true {
                return true
            }
            switch part.content {
            case .data(let data):
                if data.range(of: needle) != nil { return true }
            case .file(let url):
                // Search chunk by chunk, keeping an overlap so a match across two chunks is found.
                var tail = Data()
                var found = false
                try chunks(of: url) { chunk in
                    let window = tail + chunk
                    if window.range(of: needle) != nil { found = true }
                    tail = window.suffix(needle.count - 1)
                }
                if found { return true }
            }
        }
        return false
    }

    private static func size(of content: Content) throws -> Int {
        switch content {
        case .data(let data): return data.count
        case .file(let url):
            guard let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int else {
                throw MultipartError.unreadable(url.path, "size unknown")
            }
            return size
        }
    }

    private static func chunks(of url: URL, _ body: (Data) throws -> Void) throws {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw MultipartError.unreadable(url.path, error.localizedDescription)
        }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty {
            try body(chunk)
        }
    }
}

public enum MultipartError: Error, Equatable, CustomStringConvertible {
    case invalidBoundary(String)
    case boundaryInContent(String)
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .invalidBoundary(let boundary): "\"\(boundary)\" is not a valid multipart boundary (RFC 2046: 1–70 safe characters)"
        case .boundaryInContent(let boundary): "the multipart boundary \(boundary) occurs inside a part"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}

import Foundation

/// The `Content-Disposition` header of imgproxy's `filename`/`fn` and `return_attachment`/`att`. A
/// name comes from a URL anyone may write, so it is never copied into the header as given: the
/// quoted `filename` keeps only letters, digits and `._-()` and spaces of ASCII (anything else becomes
/// `_`), and the whole name, Hangul included, goes percent-encoded in `filename*` (RFC 6266, RFC 8187).
/// No quote, backslash, control character or line break can reach the header.
enum ContentDisposition {
    /// `fn:name[:encoded]`: the name percent-escaped, or base64url when `encoded` is true.
    static func filename(_ option: OptionArguments) throws(ProcessingError) -> String? {
        guard let raw = option[0] else { return nil }
        let encoded = try option[1].map(option.boolean) ?? false
        let decoded = encoded ? Base64URL.decode(raw).flatMap { String(data: $0, encoding: .utf8) } : raw.removingPercentEncoding
        guard let name = decoded?.filter({ !$0.isNewline && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }),
              !name.isEmpty, name.utf8.count <= maxLength else {
            throw option.invalid(raw, encoded ? "a base64url-encoded UTF-8 name of at most \(maxLength) bytes" : "a percent-escaped name of at most \(maxLength) bytes")
        }
        return name
    }

    static let maxLength = 255

    /// The header's value, or nil when the URL asked for neither a name nor an attachment. Without
    /// `fn` the name is the source's last path component, without its extension; the output's
    /// extension is added unless the name ends with it.
    static func value(filename: String?, attachment: Bool, source: String, fileExtension: String) -> String? {
        guard filename != nil || attachment else { return nil }
        var name = filename ?? stem(of: source)
        if !name.lowercased().hasSuffix("." + fileExtension) { name += "." + fileExtension }
        let plain = String(name.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-() ".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        let type = attachment ? "attachment" : "inline"
        guard plain != name else { return "\(type); filename=\"\(plain)\"" }
        let escaped = name.addingPercentEncoding(withAllowedCharacters: attributeCharacters) ?? plain
        return "\(type); filename=\"\(plain)\"; filename*=UTF-8''\(escaped)"
    }

    /// RFC 8187's attr-char: what `filename*` may hold unescaped.
    private static let attributeCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")

    private static func stem(of source: String) -> String {
        let path = source.split(separator: "?", maxSplits: 1).first.map(String.init) ?? source
        let last = path.split(separator: "/").last.map(String.init)?.removingPercentEncoding ?? ""
        let stem = last.contains(".") ? String(last[..<(last.lastIndex(of: ".") ?? last.endIndex)]) : last
        return stem.isEmpty ? "image" : String(stem.prefix(maxLength))
    }
}

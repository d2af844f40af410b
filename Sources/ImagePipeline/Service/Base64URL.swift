import Foundation

/// Base64url (RFC 4648 §5) as imgproxy URLs use it: `-` and `_` for `+` and `/`, padding optional.
public enum Base64URL {
    public static func decode<S: StringProtocol>(_ text: S) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

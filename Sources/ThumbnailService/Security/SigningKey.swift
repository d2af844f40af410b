import Foundation

/// One key and salt of signed URLs, as bytes (imgproxy's `IMGPROXY_KEY` and `IMGPROXY_SALT`).
public struct SigningKey: Sendable, Equatable {
    public var key: Data
    public var salt: Data

    public init(key: Data, salt: Data) {
        self.key = key
        self.salt = salt
    }
}

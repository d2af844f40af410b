import Foundation
import Logging

/// Every message logged, in order, as text.
public final class LogLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}
    public var all: [String] { lock.withLock { lines } }
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        lock.withLock { lines.append(event.message.description) }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener that reads a request and answers `200` with a JSON body that never ends:
/// as fast as the client reads (`endless`), or one byte per `interval` (`trickle`). It stops
/// writing when the client goes away, or after `bound` bytes or 60 s, so a broken client cannot
/// keep it going.
public final class StreamingAnswerServer: @unchecked Sendable {
    public enum Mode: Sendable {
        case endless
        case trickle(interval: TimeInterval)
    }

    private let listener: LoopbackListener
    public let port: UInt16
    private let lock = NSLock()
    private var written = 0
    private var closedAt: Date?
    private var answering = 0

    public init(_ mode: Mode, bound: Int = 1 << 30) throws {
        signal(SIGPIPE, SIG_IGN)
        listener = try LoopbackListener()
        port = listener.port
        listener.acceptEach { [weak self] client in
            guard let self else { return false }
            Thread { self.serve(client, mode, bound: bound) }.start()
            return true
        }
    }

    private func serve(_ client: Int32, _ mode: Mode, bound: Int) {
        defer { close(client) }
        var request = [UInt8](repeating: 0, count: 65536)
        guard recv(client, &request, request.count, 0) > 0 else { return }
        lock.withLock { answering += 1 }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"id\":1,\"name\":\"".utf8)
        guard send(client, head, head.count, 0) == head.count else { return }
        let started = Date()
        let chunk: [UInt8]
        switch mode {
        case .endless: chunk = Array(repeating: UInt8(ascii: "a"), count: 65536)
        case .trickle: chunk = [UInt8(ascii: "a")]
        }
        while lock.withLock({ written }) < bound, Date().timeIntervalSince(started) < 60 {
            let sent = send(client, chunk, chunk.count, 0)
            guard sent > 0 else { break }
            lock.withLock { written += sent }
            if case .trickle(let interval) = mode { Thread.sleep(forTimeInterval: interval) }
        }
        lock.withLock { closedAt = Date() }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Requests it has begun answering.
    public var requestsAnswered: Int { lock.withLock { answering } }
    /// Body bytes the client accepted.
    public var bytesWritten: Int { lock.withLock { written } }
    /// When the server saw the client go away (or gave up).
    public var clientLeftAt: Date? { lock.withLock { closedAt } }

    deinit { listener.close() }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener that reads the start of each request and then resets the connection (RST,
/// not FIN): the network dropping mid-upload, which no HTTP framework will simulate on purpose.
public final class ResettingServer: @unchecked Sendable {
    private let listener: LoopbackListener
    public let port: UInt16
    private let lock = NSLock()
    private var accepted = 0
    private var bytesRead = 0

    /// Resets once `bytesBeforeReset` bytes of a request have arrived.
    public init(bytesBeforeReset: Int) throws {
        listener = try LoopbackListener()
        port = listener.port
        listener.acceptEach { [weak self] client in
            guard let self else { return false }
            self.lock.withLock { self.accepted += 1 }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var total = 0
            while total < bytesBeforeReset {
                let count = recv(client, &buffer, buffer.count, 0)
                if count <= 0 { break }
                total += count
            }
            self.lock.withLock { self.bytesRead += total }
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(client)
            return true
        }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public var connections: Int { lock.withLock { accepted } }
    public var received: Int { lock.withLock { bytesRead } }

    deinit { listener.close() }
}

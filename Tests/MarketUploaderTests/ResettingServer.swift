import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener that reads the start of each request and then resets the connection (RST,
/// not FIN): the network dropping mid-upload, which no HTTP framework will simulate on purpose.
final class ResettingServer: @unchecked Sendable {
    private let socket: Int32
    let port: UInt16
    private let lock = NSLock()
    private var accepted = 0
    private var bytesRead = 0

    /// Resets once `bytesBeforeReset` bytes of a request have arrived.
    init(bytesBeforeReset: Int) throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socket = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw URLError(.cannotConnectToHost) }
        port = UInt16(bigEndian: address.sin_port)
        Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0, let self else { return }
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
            }
        }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var connections: Int { lock.withLock { accepted } }
    var received: Int { lock.withLock { bytesRead } }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}

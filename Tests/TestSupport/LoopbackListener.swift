import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 at a free port, for the test servers no HTTP framework would be.
public struct LoopbackListener {
    public let socket: Int32
    public let port: UInt16

    public init() throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw URLError(.cannotConnectToHost)
        }
        (socket, port) = (listener, UInt16(bigEndian: address.sin_port))
    }

    /// Hands each connection to `handle` on a thread of the listener's own, until the socket is closed
    /// or `handle` answers false (its server is gone).
    public func acceptEach(_ handle: @escaping @Sendable (Int32) -> Bool) {
        let socket = self.socket
        Thread {
            while true {
                let client = accept(socket, nil, nil)
                guard client >= 0, handle(client) else { return }
            }
        }.start()
    }

    public func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
    }
}

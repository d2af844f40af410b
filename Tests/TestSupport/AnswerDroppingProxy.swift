import Foundation
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback in front of a server that loses the answers to the next `drops` POSTs:
/// the request reaches the server whole and is carried out, and once the server starts answering the
/// client's connection is reset. What a flaky network or a crashed proxy does to a register.
public final class AnswerDroppingProxy: @unchecked Sendable {
    private let listener: LoopbackListener
    public let port: UInt16
    /// POSTs whose answers are still to be lost, and answers lost so far.
    private let counts = Locked((drops: 0, dropped: 0))

    public init(to upstream: URL) throws {
        listener = try LoopbackListener()
        port = listener.port
        let upstreamPort = upstream.port ?? 80
        listener.acceptEach { [weak self] client in
            guard let self else { return false }
            guard let server = try? RawConnection(port: upstreamPort) else {
                close(client)
                return true
            }
            Thread { self.relay(client, server) }.start()
            return true
        }
    }

    /// Loses the answers to the next `count` POSTs.
    public func dropAnswers(toNextPOSTs count: Int) { counts.withLock { $0.drops += count } }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Answers lost so far.
    public var droppedAnswers: Int { counts.current.dropped }

    /// Client bytes go up on this thread, answers come down on another; a POST seen while drops are
    /// armed turns its answer into a reset.
    private func relay(_ client: Int32, _ server: RawConnection) {
        let dropping = Locked(false)
        Thread {
            while let answer = server.receive(timeout: 30), !answer.isEmpty {
                if dropping.current {
                    self.counts.withLock { $0.dropped += 1 }
                    break
                }
                guard answer.withUnsafeBytes({ send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == answer.count else { break }
            }
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            shutdown(client, Int32(SHUT_RDWR))
        }.start()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            if buffer.starts(with: Array("POST ".utf8)) {
                let drop = counts.withLock { counts in
                    guard counts.drops > 0 else { return false }
                    counts.drops -= 1
                    return true
                }
                dropping.withLock { $0 = drop }
            }
            guard server.sendBytes(buffer.prefix(count)) else { break }
        }
        close(client)
    }
}

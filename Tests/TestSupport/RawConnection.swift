import Foundation

/// A TCP connection on loopback driven byte by byte, for clients no HTTP library would be: one that
/// sends its request a byte a second, one that hangs up mid-answer, one that says nothing at all.
public final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = LoopbackClient.socketAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    /// False once the other side has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        sendBytes(ArraySlice(text.utf8))
    }

    /// False once the other side has closed the connection.
    public func sendBytes(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { socketSend(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Up to `limit` bytes, waiting at most `timeout` seconds for the first; empty when the other side
    /// closed the connection, nil on timeout.
    public func receive(limit: Int = 65_536, timeout: TimeInterval) -> Data? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = recv(descriptor, &buffer, limit, 0)
        return count <= 0 ? Data() : Data(buffer.prefix(count))
    }

    /// Whether the other side closes the connection within `timeout` seconds (reading and dropping
    /// whatever it sends first).
    public func isClosed(within timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let data = receive(timeout: deadline.timeIntervalSinceNow) else { return false }
            if data.isEmpty { return true }
        }
        return false
    }

    deinit { close(descriptor) }
}

private func socketSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}

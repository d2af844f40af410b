import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GETs over real HTTP on loopback with URLSession, nothing cached on the client side.
public struct LoopbackClient: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    public var base: URL

    public init(base: URL) { self.base = base }

    public func get(_ path: String, headers: [String: String] = [:], timeout: TimeInterval = 30) async throws -> Answer {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// Waits up to 10 s for something to answer on `base`.
    public func waitUntilListening() async throws {
        for _ in 0..<200 {
            if (try? await get("/", timeout: 1)) != nil { return }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw URLError(.cannotConnectToHost)
    }

    /// 127.0.0.1:`port` for the socket calls of the tests' own raw clients and servers.
    public static func socketAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    /// A loopback port nothing listens on right now.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = socketAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

import Foundation

/// An address and port to listen on (`--bind`, `--metrics-bind`): port 0 takes any free one.
public struct ServiceAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` (an IPv6 host in brackets), or nil.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        self.init(host: String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    /// `HOST:PORT`, as `init?(_:)` reads it.
    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(host) || host.hasPrefix("127.") }

    /// Whether both cannot listen at once: one port (not 0, any free one) on the same host or on
    /// every interface.
    func overlaps(_ other: ServiceAddress) -> Bool {
        let everyInterface: Set<String> = ["0.0.0.0", "::", "[::]", "*"]
        return port != 0 && port == other.port && (host == other.host || everyInterface.contains(host) || everyInterface.contains(other.host))
    }

    /// `http://host:port` with the port the listener actually got.
    func url(port bound: Int?) -> String {
        "http://" + ServiceAddress(host: host, port: bound ?? port).description
    }
}

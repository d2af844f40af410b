import Foundation

/// An address and port to listen on (`--bind`, `--metrics-bind`): port 0 takes any free one.
public struct ServiceAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` (an IPv6 host in brackets), or `:PORT` for every interface (imgproxy's form), or nil.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    /// `HOST:PORT`, as `init?(_:)` reads it.
    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(host) || host.hasPrefix("127.") }

    /// Whether both cannot listen at once: one port (not 0, any free one) on the same host (by any
    /// name of loopback's), or on every interface.
    func overlaps(_ other: ServiceAddress) -> Bool {
        let everyInterface: Set<String> = ["0.0.0.0", "::", "*"]
        func canonical(_ host: String) -> String { host == "localhost" ? "127.0.0.1" : host }
        return port != 0 && port == other.port
            && (canonical(host) == canonical(other.host) || everyInterface.contains(host) || everyInterface.contains(other.host))
    }

    /// `http://host:port` with the port the listener actually got.
    func url(port bound: Int?) -> String {
        "http://" + ServiceAddress(host: host, port: bound ?? port).description
    }
}

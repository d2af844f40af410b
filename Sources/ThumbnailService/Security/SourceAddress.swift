import Foundation
import ImagePipeline

/// A host name resolved to the addresses it would connect to, and whether each may be fetched from.
/// Every spelling of an address (`127.1`, `0x7f000001`, `2130706433`, `[::ffff:127.0.0.1]`) goes
/// through the resolver, so what is checked is the numeric address, never the text.
enum SourceAddress {
    /// The host's addresses as numeric strings, or nil when it does not resolve.
    static func resolve(_ host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor?.pointee {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.ai_addr, entry.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            cursor = entry.ai_next
        }
        return addresses
    }

    /// Loopback, private, link-local, shared (CGNAT), multicast, unspecified or broadcast, in IPv4 or
    /// IPv6, including IPv4 wrapped in IPv6 (mapped, NAT64, 6to4).
    static func isInternal(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return isInternal(ipv4: withUnsafeBytes(of: v4) { Array($0) })
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address.split(separator: "%").first.map(String.init) ?? address, &v6) == 1 else { return true }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return isInternal(ipv4: Array(bytes[12...])) }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return true } // ::, ::1, IPv4-compatible
        if bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return isInternal(ipv4: Array(bytes[12...])) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isInternal(ipv4: Array(bytes[2..<6])) }
        return bytes[0] == 0xff                          // multicast
            || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80) // link-local fe80::/10
            || bytes[0] & 0xfe == 0xfc                      // unique local fc00::/7
    }

    private static func isInternal(ipv4 b: [UInt8]) -> Bool {
        b[0] == 0 || b[0] == 10 || b[0] == 127 || b[0] >= 224
            || (b[0] == 169 && b[1] == 254) || (b[0] == 172 && b[1] & 0xf0 == 16) || (b[0] == 192 && b[1] == 168)
            || (b[0] == 100 && b[1] & 0xc0 == 64)
    }
}

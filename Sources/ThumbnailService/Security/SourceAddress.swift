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

    /// Whether a source may be fetched from `address` without `--allow-private-sources`: an
    /// allow-list, so only global unicast addresses pass. IPv6 must lie in 2000::/3; both families
    /// must miss every non-global row of IANA's special-purpose registries (`nonGlobal`); an IPv4
    /// address embedded in IPv6 (mapped, compatible, NAT64, 6to4, ISATAP) is unwrapped and judged
    /// itself. Teredo, SIIT, local-use NAT64, site-local and ORCHID are outside it, whatever they carry.
    static func isGlobal(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return isGlobal(ipv4: withUnsafeBytes(of: v4) { Array($0) }) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address.split(separator: "%").first.map(String.init) ?? address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10...11] == [0xff, 0xff] { return isGlobal(ipv4: Array(bytes[12...])) } // ::ffff:a.b.c.d
        if bytes[0..<12].elementsEqual([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) { return isGlobal(ipv4: Array(bytes[12...])) } // 64:ff9b::/96
        guard bytes[0] & 0xe0 == 0x20, !nonGlobal.ipv6.contains(where: { $0.contains(bytes) }) else { return false }
        if bytes[0...1] == [0x20, 0x02] { return isGlobal(ipv4: Array(bytes[2..<6])) }                           // 6to4
        if bytes[8...11].elementsEqual([0, 0, 0x5e, 0xfe]) || bytes[8...11].elementsEqual([2, 0, 0x5e, 0xfe]) {  // ISATAP
            return isGlobal(ipv4: Array(bytes[12...]))
        }
        return true
    }

    private static func isGlobal(ipv4 bytes: [UInt8]) -> Bool {
        !nonGlobal.ipv4.contains { $0.contains(bytes) }
    }

    /// A block of addresses: its first bytes and how many bits of them count.
    struct Block: Sendable {
        let bytes: [UInt8]
        let bits: Int
        /// What the registry calls it, for readers.
        let name: String

        /// `cidr` as the registries write it (`192.0.0.0/24`, `2001::/23`).
        init(_ cidr: String, _ name: String) {
            let parts = cidr.split(separator: "/")
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, String(parts[0]), &v4) == 1 {
                bytes = withUnsafeBytes(of: v4) { Array($0) }
            } else {
                inet_pton(AF_INET6, String(parts[0]), &v6)
                bytes = withUnsafeBytes(of: v6) { Array($0) }
            }
            (bits, self.name) = (Int(parts[1]) ?? 0, name)
        }

        func contains(_ address: [UInt8]) -> Bool {
            address.count == bytes.count && (0..<bits).allSatisfy { bit in (address[bit / 8] ^ bytes[bit / 8]) & (0x80 >> (bit % 8)) == 0 }
        }
    }

    /// The blocks no source is fetched from: IANA's IPv4 and IPv6 special-purpose address registries
    /// (every row, the few marked globally reachable too: an anycast relay is no product photo's
    /// host), with IPv4 multicast and the reserved 240/4. IPv6 outside 2000::/3 is refused before
    /// these rows are read.
    static let nonGlobal: (ipv4: [Block], ipv6: [Block]) = (
        ipv4: [
            Block("0.0.0.0/8", "this network"), Block("10.0.0.0/8", "private use"), Block("100.64.0.0/10", "shared address space"),
            Block("127.0.0.0/8", "loopback"), Block("169.254.0.0/16", "link local"), Block("172.16.0.0/12", "private use"),
            Block("192.0.0.0/24", "IETF protocol assignments"), Block("192.0.2.0/24", "TEST-NET-1"), Block("192.31.196.0/24", "AS112-v4"),
            Block("192.52.193.0/24", "AMT"), Block("192.88.99.0/24", "6to4 relay anycast"), Block("192.168.0.0/16", "private use"),
            Block("192.175.48.0/24", "direct delegation AS112"), Block("198.18.0.0/15", "benchmarking"), Block("198.51.100.0/24", "TEST-NET-2"),
            Block("203.0.113.0/24", "TEST-NET-3"), Block("224.0.0.0/4", "multicast"), Block("240.0.0.0/4", "reserved"),
        ],
        ipv6: [
            Block("2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID)"), Block("2001:db8::/32", "documentation"),
            Block("2620:4f:8000::/48", "direct delegation AS112"), Block("3fff::/20", "documentation"),
        ])
}

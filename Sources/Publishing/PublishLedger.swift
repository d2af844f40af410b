import Foundation
import ImagePipeline
import MarketUploader

/// What `publish` has put on each server, per product folder, in `.openmarket-published.json` in the
/// products folder: the product id and exactly what was sent, so a rerun sends only what changed.
/// A register is written as *pending*, with what it carries, before the request leaves, and becomes
/// *registered* once the server answers; after a crash a rerun knows which products may already exist
/// and looks them up instead of listing one twice.
public struct PublishLedger: Codable, Sendable {
    public static let fileName = ".openmarket-published.json"
    /// How long after a register the servers may not show the listing yet (404 for it, no row in a
    /// list): until then, a missing listing is not taken as deleted or never made.
    public static let listingDelay: TimeInterval = 60

    public struct Entry: Codable, Equatable, Sendable {
        public enum State: String, Codable, Sendable { case pending, registered }
        public var state: State
        public var productID: Int?
        public var at: Date
        /// What the pending request carries, or what the server last accepted. Nil in ledgers written
        /// before publish compared anything.
        public var sent: ListingSnapshot?
        /// The vendor the server says owns the product (G2/G3), to tell our listings from others'.
        public var vendorID: Int?
        /// A listing this one replaces (`--recreate`), deleted once this one is registered.
        public var replaces: Int?

        public init(state: State, productID: Int? = nil, at: Date, sent: ListingSnapshot? = nil, vendorID: Int? = nil, replaces: Int? = nil) {
            (self.state, self.productID, self.at, self.sent, self.vendorID, self.replaces) = (state, productID, at, sent, vendorID, replaces)
        }
    }

    /// Keyed by "server identity|folder name".
    public var entries: [String: Entry] = [:]

    public init() {}

    public static func key(server: URL, folder: String) -> String {
        identity(of: server) + "|" + (folder as NSString).lastPathComponent
    }

    /// A key's server and folder name.
    private static func split(_ key: String) -> (server: String, folder: String)? {
        key.lastIndex(of: "|").map { (String(key[..<$0]), String(key[key.index(after: $0)...])) }
    }

    /// The servers the ledger has entries for, as `identity(of:)` spells them.
    public var servers: Set<String> { Set(entries.keys.compactMap { Self.split($0)?.server }) }

    /// The folder names with an entry for `server`, and their entries.
    public func entries(on server: URL) -> [(folder: String, entry: Entry)] {
        let prefix = Self.identity(of: server) + "|"
        return entries.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(prefix.count)), $0.value) }
            .sorted { $0.folder < $1.folder }
    }

    /// Forgets the listing `productID` on `server` (deleted): the folders it was recorded for, which
    /// the next publish registers again.
    public mutating func forget(productID: Int, on server: URL) -> [String] {
        let prefix = Self.identity(of: server) + "|"
        let keys = entries.filter { $0.key.hasPrefix(prefix) && $0.value.productID == productID }.map(\.key)
        for key in keys { entries[key] = nil }
        return keys.map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    /// Changes the entries of listing `productID` on `server` (edited by a command other than
    /// `publish`); whether there were any.
    public mutating func update(productID: Int, on server: URL, _ change: (inout Entry) -> Void) -> Bool {
        let prefix = Self.identity(of: server) + "|"
        let keys = entries.filter { $0.key.hasPrefix(prefix) && $0.value.productID == productID }.map(\.key)
        for key in keys {
            guard var entry = entries[key] else { continue }
            change(&entry)
            entries[key] = entry
        }
        return !keys.isEmpty
    }

    /// Every product id recorded for `server`, replaced ones included: none of them can be the
    /// listing an unanswered register created.
    public func knownIDs(on server: URL) -> Set<Int> {
        Set(entries(on: server).flatMap { [$0.entry.productID, $0.entry.replaces].compactMap { $0 } })
    }

    /// The vendor `server` said owns this seller's listings (G2/G3), from any entry that recorded it.
    public func vendorID(on server: URL) -> Int? {
        entries(on: server).lazy.compactMap(\.entry.vendorID).first
    }

    /// One server however its URL is spelled: `http://Host:80/`, `http://host` and, for loopback,
    /// `localhost`, `127.0.0.1` and `[::1]` are the same server, so a rerun never lists a product again
    /// because the URL was typed differently.
    public static func identity(of server: URL) -> String {
        let scheme = server.scheme?.lowercased() ?? "https"
        var host = server.host?.lowercased() ?? ""
        if host.hasSuffix(".") { host.removeLast() }
        if ["localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1"].contains(host) || host.hasPrefix("127.") { host = "localhost" }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = server.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        var path = server.path
        while path.hasSuffix("/") { path.removeLast() }
        return "\(scheme)://\(host)\(port)\(path)"
    }

    /// Entries written under an older key spelling, moved to today's: a registered entry wins over
    /// a pending one for the same product.
    private mutating func rekey() {
        var rekeyed: [String: Entry] = [:]
        for (key, entry) in entries {
            guard let (server, folder) = Self.split(key) else { continue }
            let newKey = (URL(string: server).map(Self.identity(of:)) ?? server) + "|" + folder
            if let existing = rekeyed[newKey], existing.state == .registered { continue }
            rekeyed[newKey] = entry
        }
        entries = rekeyed
    }

    public static func load(from folder: String) throws -> PublishLedger {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return PublishLedger() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            var ledger = try decoder.decode(PublishLedger.self, from: Data(contentsOf: url))
            ledger.rekey()
            return ledger
        } catch {
            // A damaged ledger must stop publishing: guessing could list products twice.
            throw PublishLedgerError.unreadable(url.path)
        }
    }

    /// Durable before it returns: a *pending* entry must be on disk before its request is sent, or a
    /// power cut could forget a product the server has listed.
    public func save(to folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(self), toPath: URL(fileURLWithPath: folder).appendingPathComponent(Self.fileName).path)
    }
}

public enum PublishLedgerError: Error, CustomStringConvertible {
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path) is damaged; fix or remove it after checking which products the server already has"
        }
    }
}

extension ListingSnapshot {
    /// What a register of `fields` with `uploads` carries: each image by name and SHA-256.
    public init(fields: ProductDraft, uploads: [UploadImage]) {
        self.init(fields: fields, images: uploads.map { $0.filename + " " + Fingerprint.hex($0.data) })
    }
}

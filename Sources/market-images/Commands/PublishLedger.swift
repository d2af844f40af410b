import Foundation
import ImagePipeline

/// What `publish` has registered, per server and product folder, in `.openmarket-published.json` in
/// the products folder. An entry is written as *pending* before its request is sent and becomes
/// *registered* with the product id once the server answers, so after a crash a rerun knows which
/// products may already exist and never lists one twice by accident.
struct PublishLedger: Codable {
    static let fileName = ".openmarket-published.json"

    struct Entry: Codable, Equatable {
        enum State: String, Codable { case pending, registered }
        var state: State
        var productID: Int?
        var at: Date
    }

    /// Keyed by "server base URL|folder name".
    var entries: [String: Entry] = [:]

    static func key(server: URL, folder: String) -> String {
        server.absoluteString + "|" + (folder as NSString).lastPathComponent
    }

    static func load(from folder: String) throws -> PublishLedger {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return PublishLedger() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(PublishLedger.self, from: Data(contentsOf: url))
        } catch {
            // A damaged ledger must stop publishing: guessing could list products twice.
            throw PublishLedgerError.unreadable(url.path)
        }
    }

    /// Durable before it returns: a *pending* entry must be on disk before its request is sent, or a
    /// power cut could forget a product the server has listed.
    func save(to folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(self), toPath: URL(fileURLWithPath: folder).appendingPathComponent(Self.fileName).path)
    }
}

enum PublishLedgerError: Error, CustomStringConvertible {
    case unreadable(String)

    var description: String {
        switch self {
        case .unreadable(let path): "\(path) is damaged; fix or remove it after checking which products the server already has"
        }
    }
}

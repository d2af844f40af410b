import Foundation
import Publishing

/// The server a preview compares with when its host names none: the only one the products folder's
/// publish record knows. Between several it does not guess (the pages then show no publish state);
/// `recorded` lists them, so the host can ask which.
public struct RecordedServer: Sendable {
    /// The one recorded server; nil with no record, or a record of several.
    public let server: URL?
    /// Every server the record knows, sorted, as `PublishLedger.identity(of:)` spells them.
    public let recorded: [String]

    public init(productsFolder: String) {
        recorded = ((try? PublishLedger.load(from: productsFolder))?.servers ?? []).sorted()
        server = recorded.count == 1 ? URL(string: recorded[0]) : nil
    }
}

import Foundation
import MarketUploader

/// One line of a publish plan: what is to be done to one listing and why, and after applying, how
/// it went. A folder has one step, or two when a replaced listing is still to be deleted.
public struct PublishStep: Encodable, Sendable {
    public enum Action: String, Encodable, Sendable {
        case register, edit, recreate, adopt, rename, unchanged, blocked, pending, orphaned
        case replaceImages = "replace-images", deleteReplaced = "delete-replaced", deleteOrphan = "delete-orphan"
    }

    public enum Result: String, Encodable, Sendable { case planned, done, failed }

    /// The product folder's name (its key in the ledger).
    public var folder: String
    public var action: Action
    public var productID: Int?
    public var detail: String
    public var changes: [FieldChange] = []
    /// What is allowed but worth a second look before it is sent (a sale deeper than half the price).
    public var warnings: [String] = []
    public var result: Result = .planned
    public var error: String?
    /// What applying needs; not part of the plan's JSON.
    public var payload: Payload?

    public struct Payload: Sendable {
        public var snapshot: ListingSnapshot
        public var images: [UploadImage]
        public var change = ProductChange()
    }

    private enum CodingKeys: String, CodingKey { case folder, action, productID, detail, changes, warnings, result, error }

    /// Whether the server is out of line with the folder after this step: exit status 1.
    public var isUnresolved: Bool {
        result == .failed || (result == .planned && [.blocked, .pending].contains(action))
    }

    public static func failed(_ folder: String, _ action: Action, productID: Int? = nil, _ message: String) -> PublishStep {
        PublishStep(folder: folder, action: action, productID: productID, detail: message, result: .failed, error: message)
    }
}

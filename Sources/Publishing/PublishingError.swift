import Foundation
import ImagePipeline
import MarketUploader

/// What can stop publishing a product folder, as data: the command line words each in terms of its
/// flags (`Output/ErrorMessages.swift`), a server in its own.
public enum PublishingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `product.json` is not one JSON object, not valid JSON, or has keys with problems: each problem
    /// a sentence naming its key.
    case productFile(path: String, problems: [String])
    /// Fields a product needs that neither `product.json` (at `productFile`, if the folder has one)
    /// nor the caller gave.
    case missingFields([String], productFile: String?)
    /// Photos that could not be prepared, each with its reason; nothing was sent.
    case photosFailed([Manifest.Failure])
    /// Preparing stopped before the end (the cache's disk is full, say), after `failures`; nothing
    /// was sent.
    case preparationStopped(ImagePipelineError, failures: [Manifest.Failure])
    /// A register went unanswered in a way that may have listed the product: it is pending, and the
    /// next run looks it up before sending it again.
    case mayHaveBeenListed(OpenMarketError)
    /// A listing was named as a product folder's that is not among the folders published.
    case noFolderToAdopt(folder: String, productID: Int)
    /// What the server holds could not be read before planning; nothing was sent, since a plan from
    /// the record alone could undo a change made on the server or list a product twice.
    case serverUnreadable(OpenMarketError)
    /// A product folder to register is already in the publish record at `record`: as listing
    /// `productID`, or as a register never answered (nil). Registering it again would list it twice.
    case alreadyRecorded(folder: String, productID: Int?, record: String)
    /// Another command that changes listings holds the products folder (`PublishLedger.lock`).
    case folderInUse(String)

    public var description: String {
        switch self {
        case .productFile(let path, let problems): problems.map { "\(path): \($0)" }.joined(separator: "\n")
        case .missingFields(let names, let file):
            "a product needs \(names.joined(separator: ", "))" + (file.map { ": set \(names.map { "\"\($0)\"" }.joined(separator: ", ")) in \($0)" } ?? "")
        case .photosFailed(let failures):
            "\(NumberText.count(failures.count, "photo")) could not be prepared (\(failures.map(\.named).joined(separator: "; "))); nothing was sent"
        case .preparationStopped(let cause, _): "\(cause.description); nothing was sent"
        case .mayHaveBeenListed(let error):
            "\(error.summary); the server may have listed it, so it is pending: the next run looks for the listing before sending anything again"
        case .noFolderToAdopt(let folder, let id): "product \(id) was named as the listing of \(folder), and there is no product folder \(folder)"
        case .serverUnreadable(let error):
            "could not read what the server holds for the recorded products, so nothing was planned or sent: \(error.summary); run again when the server answers"
        case .alreadyRecorded(let folder, let id?, let record):
            "\(folder) is already listed as product \(id) (\(record)): publish brings that listing in line with the folder; "
                + "to list it anew, delete it first (market-images delete \(id) --products …)"
        case .alreadyRecorded(let folder, nil, let record):
            "a register of \(folder) was sent and never answered (\(record)): publish looks the listing up before anything is sent again"
        case .folderInUse(let folder):
            "another publish or register is using \(folder) now (two at once could list a product twice): run again when it has finished"
        }
    }
}

extension Manifest.Failure {
    /// `IMG_3.jpg: <why>`: the photo by its file name, as its product folder's own.
    var named: String { "\((source as NSString).lastPathComponent): \(cause?.description ?? error)" }
}

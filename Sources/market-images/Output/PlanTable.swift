import Foundation
import MarketUploader
import Publishing

/// A publish plan as people read it: one row per step, as a plan/apply tool prints it, then one line
/// per step applied and a count of each kind.
struct PlanTable {
    let server: URL
    let dialect: Dialect

    func render(_ steps: [PublishStep]) -> String {
        let rows = [["FOLDER", "ACTION", "PRODUCT", "DETAIL"]] + steps.map { step in
            [Terminal.display(step.folder), step.action.rawValue, step.productID.map(String.init) ?? "-", Self.oneLine(step.error ?? step.detail)]
        }
        // The server as the seller typed it; its normalised identity is only the record's key.
        var shown = server.absoluteString
        while shown.hasSuffix("/") { shown.removeLast() }
        return "Plan for \(Terminal.display(shown)) (\(dialect.rawValue)):\n" + TextTable.lines(rows).map { "  " + $0 }.joined(separator: "\n") + "\n"
    }

    /// A detail of several lines (a list of problems) as one cell: "nothing was sent: a; b".
    static func oneLine(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }
        guard var joined = lines.first else { return text }
        for line in lines.dropFirst() where !line.isEmpty { joined += (joined.hasSuffix(":") ? " " : "; ") + line }
        return joined
    }

    /// What a step that was carried out did, in the past tense.
    func outcome(_ step: PublishStep) -> String {
        let id = step.productID.map(String.init) ?? "?"
        let text: String
        switch step.action {
        case .register: text = "registered product \(id)"
        case .edit: text = "edited product \(id): " + step.changes.map(\.field).joined(separator: ", ")
        case .replaceImages: text = "replaced the images of product \(id)"
        case .recreate: text = "registered product \(id) with the new photos and deleted the listing it replaces"
        case .deleteReplaced: text = "deleted product \(id), which was replaced"
        case .deleteOrphan: text = "deleted product \(id)"
        case .adopt: text = "adopted product \(id)"
        case .rename: text = "recorded product \(id) as this folder's"
        case .unchanged: text = "recorded what product \(id) holds"
        case .blocked, .pending, .orphaned: text = step.detail
        }
        return "\(Terminal.display(step.folder)): \(text)"
    }

    /// "1 to register, 2 unchanged, 1 blocked", and what was done with them.
    func summary(_ steps: [PublishStep], dryRun: Bool) -> String {
        var counts: [PublishStep.Action: Int] = [:]
        // An adoption or rename that failed did not happen: it is counted as failed only.
        for step in steps where !([.adopt, .rename].contains(step.action) && step.result == .failed) { counts[step.action, default: 0] += 1 }
        let order: [(PublishStep.Action, String)] = [
            (.register, "to register"), (.edit, "to edit"), (.replaceImages, "to replace images"), (.recreate, "to recreate"),
            (.deleteReplaced, "replaced to delete"), (.deleteOrphan, "orphaned to delete"), (.adopt, "adopted"), (.rename, "renamed"),
            (.unchanged, "unchanged"), (.orphaned, "orphaned"), (.blocked, "blocked"), (.pending, "pending"),
        ]
        let parts = order.compactMap { action, label in counts[action].map { "\($0) \(label)" } }.joined(separator: ", ")
        // A blocked step is counted as blocked, not also as failed.
        let failed = steps.filter { $0.result == .failed && $0.action != .blocked }.count
        let ending = dryRun ? "nothing was sent (--dry-run)" : failed > 0 ? "\(failed) failed"
            : steps.contains(where: \.isUnresolved) ? "the rest done" : "done"
        return "Plan: \(parts.isEmpty ? "nothing to do" : parts); \(ending)."
    }
}

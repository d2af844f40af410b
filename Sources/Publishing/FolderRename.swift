import Foundation
import MarketUploader

/// A product folder renamed or moved since it was published, told by its content: a folder the
/// record does not know holds the photos (by their bytes' fingerprints) or the whole `product.json`
/// of exactly one recorded folder that is gone, and no other folder does. Such a folder is that
/// listing's, not a new product: registering it and calling the old listing orphaned would list it
/// twice, or, with `--delete-orphans`, leave it unlisted.
public enum FolderRename {
    /// Each new folder's old name, from `new` (folder name → what it holds now) and the recorded
    /// folders that are gone (`gone`, name → what was last sent for them). The whole `product.json`
    /// is matched first, then the photos among the folders left: sizes of one shirt share their
    /// photos, never all their fields. A match that is not one to one is no rename: between two
    /// lookalikes nothing is guessed.
    public static func match(new: [String: ListingSnapshot], gone: [String: ListingSnapshot]) -> [String: String] {
        var found = oneToOne(new: new, gone: gone) { $0.fields == $1.fields }
        let claimed = Set(found.values)
        found.merge(oneToOne(new: new.filter { found[$0.key] == nil }, gone: gone.filter { !claimed.contains($0.key) }) { photos($0) == photos($1) }) { kept, _ in kept }
        return found
    }

    /// The pairs `same` holds for in which each name on either side appears once.
    private static func oneToOne(new: [String: ListingSnapshot], gone: [String: ListingSnapshot],
                                 same: (ListingSnapshot, ListingSnapshot) -> Bool) -> [String: String] {
        var pairs: [(new: String, old: String)] = []
        for (name, held) in new {
            for (old, sent) in gone where same(held, sent) { pairs.append((name, old)) }
        }
        let once = { (names: [String]) in Set(Dictionary(grouping: names, by: { $0 }).filter { $0.value.count == 1 }.keys) }
        let (single, singleOld) = (once(pairs.map(\.new)), once(pairs.map(\.old)))
        return Dictionary(uniqueKeysWithValues: pairs.filter { single.contains($0.new) && singleOld.contains($0.old) }.map { ($0.new, $0.old) })
    }

    /// The photos' fingerprints, whatever they were named when uploaded, in no order.
    public static func photos(_ snapshot: ListingSnapshot) -> [String] {
        snapshot.images.map { String($0.split(separator: " ").last ?? "") }.sorted()
    }
}

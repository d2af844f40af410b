import Foundation

/// The marketplaces a seller lists on and their main-image rules: the one table `--listing` reads
/// its names from, the checks run on the prepared pixels, `--fill`'s default comes from, and the
/// README's table is written from. Rules only a model or OCR could check (no text, logos or
/// watermarks) are not here; every rule says where it was read (collected 2026-11-26, see
/// docs/marketplace-photo-rules.md in the shared notes).
public struct Marketplace: Sendable, Hashable {
    /// The `--listing` value.
    public var id: String
    /// As messages name it.
    public var name: String
    /// How much of a square frame `--background white` makes the product fill by default.
    public var fill: Double
    public var rules: [ListingRule]

    /// Every marketplace, in the order `--help` lists them.
    public static let all: [Marketplace] = [
        Marketplace(id: "amazon", name: "Amazon", fill: 0.85, rules: [
            ListingRule(.longSide(1000), source: amazon + " (1000 px enables zoom; 500 px is the minimum)"),
            ListingRule(.whiteBackground(share: 0.9, pure: true), source: amazon),
            ListingRule(.productShare(0.85), source: amazon),
        ]),
        Marketplace(id: "ebay", name: "eBay", fill: 0.85, rules: [
            ListingRule(.longSide(500), source: ebay),
            ListingRule(.noBorder, source: ebay),
        ]),
        Marketplace(id: "coupang", name: "Coupang", fill: 0.85, rules: [
            ListingRule(.whiteBackground(share: 0.9, pure: true), source: coupang),
            ListingRule(.productShare(0.80), source: coupang + " (80% in the 2023 notice, 85% in the 2025 policy)"),
            ListingRule(.centred(0.05), source: coupang),
            ListingRule(.noBorder, source: coupang),
        ]),
        Marketplace(id: "naver", name: "Naver", fill: 0.85, rules: [
            ListingRule(.longSide(1000), recommended: true, source: naver + " (1000×1000 recommended; 300 px minimum)"),
            ListingRule(.square(0.01), recommended: true, source: naver),
            ListingRule(.noBorder, source: naver),
        ]),
        // The OpenMarket server's own rules (format, bytes, count) are `ImageRules`, checked for every
        // publish; the listing adds only `--fill`'s default for the apps' square cells.
        Marketplace(id: "openmarket", name: "OpenMarket", fill: 0.85, rules: []),
    ]

    private static let amazon = "Amazon Seller Central, \"Adding Images\" (product image requirements), read from a mirror 2026-11-26"
    private static let ebay = "https://www.ebay.com/help/policies/listing-policies/picture-policy?id=4370, read 2026-11-26"
    private static let coupang = "Coupang Wing image guide as secondary Korean summaries (2023–2025), read 2026-11-26; the Wing page not retrieved"
    private static let naver = "Naver Smart Store image guide as secondary summaries (2024), read 2026-11-26"

    /// The marketplace with this `--listing` value.
    public static func named(_ id: String) -> Marketplace? { all.first { $0.id == id.lowercased() } }

    /// The `--listing` values, for help and errors.
    public static var names: String { all.map(\.id).joined(separator: ", ") }

    /// Its rules in a few words, as the README's table lists them.
    public var summary: String {
        rules.isEmpty ? "the server's own rules only (format, bytes, count)" : rules.map(\.summary).joined(separator: "; ")
    }

    /// What is wrong with `frame` for this marketplace, each a sentence; empty when nothing.
    public func problems(_ frame: PhotoFrame) -> [String] {
        rules.compactMap { $0.problem(frame, market: name) }
    }
}

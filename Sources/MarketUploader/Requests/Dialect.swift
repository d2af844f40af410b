import Foundation

/// The three OpenMarket server generations. They differ in paths, part names, field names and who
/// may write, so every request is built for one of them.
public enum Dialect: String, Sendable, CaseIterable, Codable {
    /// G1 (2021): `/item`, parts `images[]`, `descriptions`, a per-product password.
    case items
    /// G2 (2022): `/api/products`, one `params` JSON part with `descriptions`, vendor identifier + secret.
    case marketTraining = "market-training"
    /// G3 (2022–2024): as G2 but `description`, and deletion through an `/archived` URI.
    case openmarket

    public var defaultBaseURL: URL {
        switch self {
        case .items: URL(string: "https://camp-open-market-2.herokuapp.com")!
        case .marketTraining: URL(string: "https://market-training.yagom-academy.kr")!
        case .openmarket: URL(string: "https://openmarket.yagom-academy.kr")!
        }
    }

    /// The dialect a server speaks, from its host name; nil for hosts this tool does not know
    /// (a local test server), where `--dialect` must say.
    public static func inferred(from url: URL) -> Dialect? {
        let host = url.host?.lowercased() ?? ""
        if host.contains("camp-open-market") { return .items }
        if host.hasPrefix("market-training.") { return .marketTraining }
        if host.hasPrefix("openmarket.") { return .openmarket }
        return nil
    }

    /// Name of every image part: literally `images[]` on G1, `images` after.
    var imagePartName: String { self == .items ? "images[]" : "images" }
    /// G1 and G2 say `descriptions`, G3 `description`.
    var descriptionKey: String { self == .openmarket ? "description" : "descriptions" }
    /// Only G1's PATCH is multipart and can carry images.
    public var canChangeImages: Bool { self == .items }
    var usesVendorCredentials: Bool { self != .items }
}

import Foundation

/// What the OpenMarket server accepts as product images, in all three dialects.
public struct ImageRules: Sendable, Equatable {
    /// Images per product on register (and on a G1 edit that carries images).
    public var countRange: ClosedRange<Int> = 1...5
    /// 300,000 bytes satisfies both readings of the server's "300 KB".
    public var maxBytes: Int = 300_000

    public init() {}
}

import Foundation

/// A source's bytes in memory and their slot: the slot is given back when the last request using
/// the bytes lets go of this, so the count is of bytes really held, however many requests share them.
final class HeldSource: @unchecked Sendable {
    private let slots: SourceSlots
    /// Set once, by whoever took the slot, before anyone else sees it.
    var data = Data()

    /// Takes a slot, or answers 503 when every slot is held.
    init(slots: SourceSlots) throws(ServiceFailure) {
        guard slots.acquire() else {
            throw .unavailable("overloaded", "\(slots.limit) sources are being fetched or waiting; try again shortly")
        }
        self.slots = slots
    }

    deinit { slots.release() }
}

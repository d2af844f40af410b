import ImagePipeline

/// Source bytes some request holds now, by digest, so concurrent renders of one source (its sizes)
/// share them and its slot instead of each reading the copy into a slot of its own.
final class SourcesInMemory: Sendable {
    private final class Weak: @unchecked Sendable { weak var held: HeldSource? }
    private let entries = Locked<[String: Weak]>([:])

    subscript(digest: String) -> HeldSource? {
        get { entries.withLock { $0[digest]?.held } }
        set {
            entries.withLock { entries in
                entries = entries.filter { $0.value.held != nil }
                let box = Weak()
                box.held = newValue
                entries[digest] = box
            }
        }
    }
}

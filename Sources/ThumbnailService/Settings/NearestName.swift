/// The known name a misspelt one was most likely meant to be (`IMGPROXY_QUALTY` → `IMGPROXY_QUALITY`,
/// `--qualty` → `--quality`), for "did you mean" in a warning or an error: the closest by edits
/// (insertions, deletions, substitutions), if within a few.
enum NearestName {
    static func to(_ name: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(1, min(3, name.count / 5))
        let best = candidates.map { (candidate: $0, edits: edits(name, $0)) }.min { ($0.edits, $0.candidate) < ($1.edits, $1.candidate) }
        return best.flatMap { $0.edits <= limit ? $0.candidate : nil }
    }

    /// " (did you mean X?)" or nothing.
    static func suggestion(for name: String, among candidates: some Sequence<String>) -> String {
        to(name, among: candidates).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Levenshtein distance, one row at a time.
    private static func edits(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a.utf8), Array(b.utf8))
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}

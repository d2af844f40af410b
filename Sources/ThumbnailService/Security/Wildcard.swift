/// imgproxy's `*` in an allowed source (`https://*.example.com/`, `local:///shop-*/`): any run of
/// characters within one part, a host's label or a path's segment. Unlike imgproxy's, whose `*`
/// matches any run but `/` over the raw URL text (so `https://*.example.com/` also lets
/// `https://evil.test?.example.com/` and `https://a.b.example.com/` through), it never crosses a `.`
/// of a host or a `/` of a path: sources are compared part by part once parsed (`SourceURL`).
enum Wildcard {
    /// Whether `pattern` matches all of `text`.
    static func matches(_ pattern: Substring, _ text: Substring) -> Bool {
        let (pattern, text) = (Array(pattern.utf8), Array(text.utf8))
        // Greedy with one step back to the last `*`: linear in practice, at most pattern × text.
        var (p, t) = (0, 0)
        var star: (p: Int, t: Int)?
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = (p, t)
                p += 1
            } else if p < pattern.count, pattern[p] == text[t] {
                (p, t) = (p + 1, t + 1)
            } else if let last = star {
                star = (last.p, last.t + 1)
                (p, t) = (last.p + 1, last.t + 1)
            } else {
                return false
            }
        }
        return pattern[p...].allSatisfy { $0 == UInt8(ascii: "*") }
    }

    /// Whether `text`'s parts begin with `pattern`'s: every part but the last matched whole, the
    /// last matching the start of the next part of `text` (`/images/` allows `/images/a.jpg`,
    /// `/img` allows `/img-1/a.jpg`).
    static func matchesPrefix(_ pattern: [Substring], _ text: [Substring]) -> Bool {
        guard let last = pattern.last, text.count >= pattern.count else { return false }
        return zip(pattern.dropLast(), text).allSatisfy { matches($0, $1) } && matches(last + "*", text[pattern.count - 1])
    }
}

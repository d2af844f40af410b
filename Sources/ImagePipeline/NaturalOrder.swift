/// Orders file names the way a person does: `IMG_2` before `IMG_10`, case ignored.
enum NaturalOrder {
    static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        let a = chunks(lhs), b = chunks(rhs)
        for (x, y) in zip(a, b) where x != y {
            switch (x, y) {
            case let (.number(m, mText), .number(n, nText)):
                return m != n ? m < n : mText < nText
            case let (.text(s), .text(t)):
                return s < t
            case (.number, .text):
                return true
            case (.text, .number):
                return false
            }
        }
        // Same chunks up to the shorter name; fall back to a byte comparison so the order is total.
        return a.count != b.count ? a.count < b.count : lhs < rhs
    }

    private enum Chunk: Equatable {
        case text(String)
        case number(Double, String)
    }

    private static func chunks(_ name: String) -> [Chunk] {
        var result: [Chunk] = []
        var current = ""
        var inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            // Digit runs compare by value; Double keeps very long runs from overflowing.
            result.append(inDigits ? .number(Double(current) ?? 0, current) : .text(current.lowercased()))
            current = ""
        }
        for character in name {
            let isDigit = character.isASCII && character.isNumber
            if isDigit != inDigits { flush(); inDigits = isDigit }
            current.append(character)
        }
        flush()
        return result
    }
}

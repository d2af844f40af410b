/// Rows as aligned columns, two spaces apart, aligned by the columns a terminal shows (see
/// `DisplayWidth`: a Hangul name is twice as wide as its character count). The last column is not
/// padded, so a long detail does not push trailing spaces onto every other row.
enum TextTable {
    static func lines(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<max(columns - 1, 0)).map { column in rows.map { column < $0.count ? DisplayWidth.of($0[column]) : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index < widths.count ? cell + String(repeating: " ", count: max(0, widths[index] - DisplayWidth.of(cell))) : cell
            }.joined(separator: "  ")
        }
    }
}

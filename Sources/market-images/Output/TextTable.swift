/// Rows as aligned columns, two spaces apart. The last column is not padded, so a long detail does not
/// push trailing spaces onto every other row.
enum TextTable {
    static func lines(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<max(columns - 1, 0)).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index < widths.count ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }
    }
}

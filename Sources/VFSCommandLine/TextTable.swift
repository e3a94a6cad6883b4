#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VFSCore

/// Rows as aligned columns: two spaces between columns, the last column not padded,
/// no white space at either end of a line. The first row is usually the header.
/// Control characters in cells are shown as escapes (DisplayText.printable): cells
/// hold names from files, which may be hostile.
public enum TextTable {
    public static func render(_ rows: [[String]]) -> String {
        let rows = rows.map { $0.map(DisplayText.printable) }
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        var text = ""
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            text += cells.joined(separator: "  ").trimmingUnicodeWhitespace() + "\n"
        }
        return text
    }
}

import ArgumentParser

/// The relay clients' one listing style: on a terminal, a header line and aligned
/// columns; piped, tab-separated rows and no header (for cut and awk); `--json` is each
/// command's own. Sizes are bytes, or with -h as 1.2 MiB.
public enum Listing {
    public static func text(_ header: [String], _ rows: [[String]], terminal: Bool = Terminal.stdoutIsTerminal) -> String {
        guard terminal else { return rows.map { $0.joined(separator: "\t") + "\n" }.joined() }
        guard !rows.isEmpty else { return "" }
        let lines = [header] + rows
        let widths = header.indices.map { column in lines.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return lines.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    public static func print(_ header: [String], _ rows: [[String]]) {
        Swift.print(text(header, rows), terminator: "")
    }

    /// Bytes, or with `human` as ProgressBar writes them (1.2 MiB).
    public static func size(_ bytes: Int64, human: Bool) -> String { human ? ProgressBar.size(Int(bytes)) : String(bytes) }
}


/// `-h`/`--human-readable`, as ls, du and df take it (the commands that have it keep
/// --help for help).
public struct HumanSizeOption: ParsableArguments {
    @Flag(name: [.customShort("h"), .customLong("human-readable")], help: "Sizes as 1.2 MiB instead of bytes.")
    public var human = false
    public init() {}
}

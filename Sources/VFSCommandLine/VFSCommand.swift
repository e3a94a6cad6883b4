import ArgumentParser
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// A vfs tool: ArgumentParser parses it; errors are reported as
/// `vfs-tool: error: …` and `vfs-tool: hint: …` lines with the documented exit status.
public protocol VFSCommand: ParsableCommand {}

/// A command with checks across its options. They run in `check()`, once parsing has
/// fully succeeded, not in ArgumentParser's `validate()`: that runs before unknown
/// options are looked for, so a mistyped `--recipeint` would be reported as whatever
/// the checks found missing instead of as the unknown option it is.
public protocol CheckedCommand: ParsableCommand {
    func check() throws
}

extension VFSCommand {
    public static func main() {
        let tool = configuration.commandName ?? "vfs"
        do {
            var command = try parseAsRoot()
            if let checked = command as? CheckedCommand { try checked.check() }
            try command.run()
        } catch let error as ReportableError {
            Diagnostics.report(error, tool: tool)
            Glibc.exit(error.exitStatus.rawValue)
        } catch {
            if let reportable = Self.underlyingReportable(error) {
                Diagnostics.report(reportable, tool: tool)
                Glibc.exit(reportable.exitStatus.rawValue)
            }
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version: ArgumentParser's text on stdout.
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let message = fullMessage(for: error)
            Diagnostics.reportParserMessage(message, tool: tool)
            Glibc.exit(code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
        }
    }
}

extension VFSCommand {
    /// A ReportableError thrown from `validate()` reaches us wrapped in ArgumentParser's
    /// internal error type; find it so its exit status and hints survive.
    static func underlyingReportable(_ error: Error, depth: Int = 0) -> ReportableError? {
        if let reportable = error as? ReportableError { return reportable }
        guard depth < 4 else { return nil }
        for child in Mirror(reflecting: error).children {
            if let inner = child.value as? Error, let found = underlyingReportable(inner, depth: depth + 1) { return found }
            for grandchild in Mirror(reflecting: child.value).children {
                if let inner = grandchild.value as? Error, let found = underlyingReportable(inner, depth: depth + 1) { return found }
            }
        }
        return nil
    }
}

/// Writes diagnostics to stderr in the toolkit's format.
public enum Diagnostics {
    /// Messages quote names from files and bundles: their control characters are
    /// escaped (Terminal.printable), so each message stays one line of plain text.
    public static func report(_ error: ReportableError, tool: String) {
        var text = "\(tool): error: \(Terminal.printable(error.description))\n"
        for hint in error.hints { text += "\(tool): hint: \(Terminal.printable(hint))\n" }
        writeStandardError(text)
    }

    public static func warn(_ message: String, tool: String) {
        writeStandardError("\(tool): warning: \(Terminal.printable(message))\n")
    }

    public static func info(_ message: String, tool: String) {
        writeStandardError("\(tool): \(Terminal.printable(message))\n")
    }

    /// ArgumentParser's "Error: …" becomes "tool: error: …"; the usage lines follow as hints.
    static func reportParserMessage(_ message: String, tool: String) {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return }
        var first = lines.removeFirst()
        if first.hasPrefix("Error: ") { first.removeFirst(7) }
        if let c = first.first { first = c.lowercased() + first.dropFirst() }
        var text = "\(tool): error: \(first)\n"
        for line in lines {
            let trimmed = line.trimmingCharacters(in: " ")
            if trimmed.hasPrefix("Usage:") || trimmed.hasPrefix("See '") || trimmed.hasPrefix("Help:") {
                text += "\(tool): hint: \(trimmed.prefix(1).lowercased() + trimmed.dropFirst())\n"
            }
        }
        writeStandardError(text)
    }

    public static func writeStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

import ArgumentParser
import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// A vfs tool: ArgumentParser parses it; errors are reported as
/// `vfs-tool: error: …` and `vfs-tool: hint: …` lines with the documented exit status.
public protocol VFSCommand: ParsableCommand {
    /// The command line as ArgumentParser is to see it: a tool rewrites habits it can't
    /// declare (GNU shred's `--remove[=HOW]`, an option whose value is optional).
    static func rewrite(_ arguments: [String]) -> [String]
}

/// What every tool does first, in a process of its own (not when a test runs a command
/// in process): no secrets in a crash (`ProcessHardening`), and libcrypto's global state
/// kept until the process is gone, so a thread still ending while it exits does not free
/// into state OpenSSL's exit handler already freed (`CryptoLibrary`).
func startProcess() {
    ProcessHardening.apply()
    CryptoLibrary.keepUntilExit()
}

extension VFSCommand {
    public static func rewrite(_ arguments: [String]) -> [String] { arguments }
}

/// The async twin of `VFSCommand`, for tools whose work is naturally async (the relay
/// server and its clients). Parsing, `check()` and error reporting are the same: both
/// entry points end in `CommandFailure.report`.
public protocol AsyncVFSCommand: AsyncParsableCommand {}

/// A command with checks across its options. They run in `check()`, once parsing has
/// fully succeeded, not in ArgumentParser's `validate()`: that runs before unknown
/// options are looked for, so a mistyped `--recipeint` would be reported as whatever
/// the checks found missing instead of as the unknown option it is.
public protocol CheckedCommand: ParsableCommand {
    func check() throws
}

extension VFSCommand {
    public static func main() {
        do { try execute() } catch { report(error) }
    }

    /// Parses `arguments` (the process's when nil), checks and runs the command;
    /// throws whatever ends the run, for `report`.
    public static func execute(_ arguments: [String]? = nil) throws {
        if arguments == nil { startProcess() }
        Diagnostics.tool = toolName
        AgePlugin.host = PluginHost.forTools(environment: VFSPaths.current.environment)
        let given = arguments ?? Array(CommandLine.arguments.dropFirst())
        if printsVersion(given) { return }
        var command = try parseAsRoot(try ArgumentHabits.mend(rewrite(given), root: self))
        if let checked = command as? CheckedCommand { try checked.check() }
        try command.run()
    }

    /// Reports `error` the toolkit's way and exits with its status.
    public static func report(_ error: Error) -> Never {
        CommandFailure.report(error, command: self)
    }
}

extension AsyncVFSCommand {
    public static func main() async {
        do { try await execute() } catch { report(error) }
    }

    /// Parses `arguments` (the process's when nil), checks and runs the command;
    /// throws whatever ends the run, for `report`.
    public static func execute(_ arguments: [String]? = nil) async throws {
        if arguments == nil { startProcess() }
        Diagnostics.tool = toolName
        AgePlugin.host = PluginHost.forTools(environment: VFSPaths.current.environment)
        let given = arguments ?? Array(CommandLine.arguments.dropFirst())
        if printsVersion(given) { return }
        var command = try parseAsRoot(try ArgumentHabits.mend(given, root: self))
        if let checked = command as? CheckedCommand { try checked.check() }
        // A subcommand of an async root may itself be sync.
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    /// Reports `error` the toolkit's way and exits with its status.
    public static func report(_ error: Error) -> Never {
        CommandFailure.report(error, command: self)
    }
}

/// The one place that turns an error a command ended with into what the user sees
/// (stderr lines, or ArgumentParser's text on stdout for --help/--version) and the
/// process's exit status.
public struct CommandFailure: Equatable, Sendable {
    /// Text for stdout (only --help and --version have any).
    public var standardOutput: String
    /// `tool: error: …` then `tool: hint: …` lines.
    public var standardError: String
    public var status: Int32

    /// What `command` (the root command type) reports for `error`.
    public init(_ error: Error, command: ParsableCommand.Type) {
        let tool = command.toolName
        if let reportable = error as? ReportableError {
            self.init(standardOutput: "", standardError: Diagnostics.lines(for: reportable, tool: tool),
                      status: reportable.exitStatus.rawValue)
            return
        }
        let code = command.exitCode(for: error)
        let message = command.fullMessage(for: error)
        if code == .success {
            // --help, --version: ArgumentParser's text on stdout.
            self.init(standardOutput: message + "\n", standardError: "", status: 0)
            return
        }
        self.init(standardOutput: "", standardError: Diagnostics.parserLines(message, tool: tool),
                  status: code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
    }

    public init(standardOutput: String, standardError: String, status: Int32) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.status = status
    }

    /// Writes the report and exits.
    public static func report(_ error: Error, command: ParsableCommand.Type) -> Never {
        let failure = CommandFailure(error, command: command)
        if !failure.standardOutput.isEmpty { print(failure.standardOutput, terminator: "") }
        Diagnostics.writeStandardError(failure.standardError)
        Glibc.exit(failure.status)
    }
}

extension ParsableCommand {
    /// The name diagnostics start with: the root command's name.
    static var toolName: String { configuration.commandName ?? "vfs" }

    /// `--version` prints the tool's name and version (`vfs-encrypt 0.1.0`), as the
    /// GNU tools do; true if it did.
    static func printsVersion(_ arguments: [String]) -> Bool {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        guard !configuration.version.isEmpty, arguments[..<end].contains("--version") else { return false }
        print("\(toolName) \(configuration.version)")
        return true
    }
}

/// Writes diagnostics to stderr in the toolkit's format (as age's cmd/age/tui.go):
/// `tool: error: …` (lowercase, no final period, bad input quoted), then
/// `tool: hint: …` lines; `tool: warning: …` and plain `tool: …` notes. Nothing else
/// goes to stderr, and nothing of this goes to stdout.
public enum Diagnostics {
    /// The tool's name, set once by the entry point (VFSCommand/AsyncVFSCommand).
    public nonisolated(unsafe) static var tool = "vfs"

    /// Messages quote names from files and bundles: their control characters are
    /// escaped (DisplayText.printable), so each message stays one line of plain text.
    public static func report(_ error: ReportableError) {
        writeStandardError(lines(for: error, tool: tool))
    }

    static func lines(for error: ReportableError, tool: String) -> String {
        var text = "\(tool): error: \(DisplayText.printable(error.description))\n"
        for hint in error.hints { text += "\(tool): hint: \(DisplayText.printable(hint))\n" }
        return text
    }

    public static func warn(_ message: String) {
        writeStandardError("\(tool): warning: \(DisplayText.printable(message))\n")
    }

    /// An error that does not end the run (a tool that goes on with its other operands).
    public static func error(_ message: String) {
        writeStandardError("\(tool): error: \(DisplayText.printable(message))\n")
    }

    public static func hint(_ message: String) {
        writeStandardError("\(tool): hint: \(DisplayText.printable(message))\n")
    }

    public static func info(_ message: String) {
        writeStandardError("\(tool): \(DisplayText.printable(message))\n")
    }

    /// ArgumentParser's "Error: …" becomes "tool: error: …"; the usage lines follow as hints.
    static func parserLines(_ message: String, tool: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return "" }
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
        return text
    }

    public static func writeStandardError(_ text: String) {
        // Nowhere left to report a failure to write the report.
        try? writeAll(fd: STDERR_FILENO, Array(text.utf8))
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

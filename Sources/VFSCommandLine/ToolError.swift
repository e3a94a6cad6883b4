import VFSCore

/// An error a tool reports itself: one line, an exit status, and hints.
public struct ToolError: ReportableError {
    public let message: String
    public let exitStatus: ExitStatus
    public let hints: [String]

    public init(_ message: String, exit: ExitStatus, hints: [String] = []) {
        self.message = message
        self.exitStatus = exit
        self.hints = hints
    }

    public var description: String { message }

    public static func usage(_ message: String, hints: [String] = []) -> ToolError {
        ToolError(message, exit: .usage, hints: hints)
    }

    /// Exit 1 after a bundle that left out names it could not store (each named in a
    /// warning above): `holder` is what holds the rest ("the bundle", "the transfer").
    public static func namesLeftOut(_ count: Int, holder: String) -> ToolError {
        ToolError("\(count) name\(count == 1 ? "" : "s") could not be stored or read and \(count == 1 ? "was" : "were") left out (listed above); \(holder) holds the rest",
                  exit: .no)
    }
}

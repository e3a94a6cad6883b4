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
}

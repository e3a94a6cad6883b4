/// The exit statuses every tool uses (sysexits.h values), documented in each man page.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// A clean "no": a check that denies, nothing matched.
    case no = 1
    /// vfs-cloud put: another device's newer version won; this one is kept as a conflict copy.
    case conflict = 3
    case usage = 64
    /// Bad or corrupt input, failed authentication.
    case dataError = 65
    case noInput = 66
    /// A service is unavailable: the relay is unreachable (DESIGN.md), or no clipboard tool (vfs-keychain -c).
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
    case temporaryFailure = 75
    /// Permission denied: policy, wrong passcode, no identity.
    case permissionDenied = 77
}

/// An error that knows how a tool should report it.
public protocol ReportableError: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
    /// Lines printed as `tool: hint: …` after the error.
    var hints: [String] { get }
}

extension ReportableError {
    public var hints: [String] { [] }
}

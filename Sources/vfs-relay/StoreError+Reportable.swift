import VFSCommandLine
import VFSRelayServer

/// How the admin commands report what the store refused.
extension StoreError: CustomStringConvertible {}
extension StoreError: ReportableError {
    public var description: String {
        switch self {
        case .notFound(let message), .conflict(let message), .invalid(let message), .preconditionFailed(let message):
            return message
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .notFound: return .noInput
        case .conflict: return .dataError
        case .invalid(let message) where message.hasSuffix(" is disabled"): return .permissionDenied
        case .invalid: return .usage
        case .preconditionFailed: return .temporaryFailure
        }
    }

    public var hints: [String] {
        switch self {
        case .notFound(let message) where message.hasPrefix("no organisation"):
            return ["add it first with vfs-relay org add NAME"]
        case .notFound(let message) where message.hasPrefix("no user"):
            return ["vfs-relay users lists them"]
        case .invalid(let message) where message.hasSuffix(" is disabled"):
            return ["vfs-relay user enable EMAIL lets the user back in"]
        default:
            return []
        }
    }
}

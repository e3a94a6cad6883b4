import ArgumentParser
import Foundation
import VFSCommandLine
import VFSCore
import VFSRelayServer
#if canImport(Glibc)
import Glibc
#endif

/// The async entry point: parse, run, and report failures as `vfs-relay: error: …`
/// with the documented exit status.
enum RelayMain {
    static let tool = "vfs-relay"

    static func run(_ root: any AsyncParsableCommand.Type) async {
        Diagnostics.tool = tool
        do {
            var command = try root.parseAsRoot()
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch let error as ReportableError {
            Diagnostics.report(error)
            exit(error.exitStatus.rawValue)
        } catch let error as StoreError {
            let reportable = report(error)
            Diagnostics.report(reportable)
            exit(reportable.exitStatus.rawValue)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success {
                print(root.fullMessage(for: error))
                exit(0)
            }
            let message = root.fullMessage(for: error)
            var lines = message.split(separator: "\n").map(String.init)
            var first = lines.isEmpty ? "\(error)" : lines.removeFirst()
            if first.hasPrefix("Error: ") { first.removeFirst(7) }
            if let c = first.first { first = c.lowercased() + first.dropFirst() }
            let hints = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("Usage:") || $0.hasPrefix("See '") }
            let status: ExitStatus = code == .validationFailure ? .usage : (code.rawValue == 64 ? .usage : .ioError)
            Diagnostics.report(ToolError(first, exit: status, hints: hints.map { $0.prefix(1).lowercased() + $0.dropFirst() }))
            exit(status.rawValue)
        }
    }

    static func report(_ error: StoreError) -> ToolError {
        switch error {
        case .notFound(let message): return ToolError(message, exit: .noInput)
        case .conflict(let message): return ToolError(message, exit: .dataError)
        case .invalid(let message): return ToolError(message, exit: .usage)
        case .preconditionFailed(let message): return ToolError(message, exit: .temporaryFailure)
        }
    }
}

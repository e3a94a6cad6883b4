#if canImport(Glibc)
import Glibc
#endif

/// Lets the user change a secret in their editor, as pass edit does: the secret goes
/// to a `PrivateScratchFile` on a memory file system, `$VISUAL`, else `$EDITOR`, else
/// `vi` runs on it (through `/bin/sh -c`, so the variable may hold options), and the
/// file is read back, overwritten and removed whatever happens.
public enum ExternalEditor {
    /// Why an edit gave nothing back.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The editor exited with a status other than 0 (or 128 + a signal).
        case editorFailed(command: String, status: Int32)
        public var description: String {
            switch self {
            case let .editorFailed(command, status): return "the editor \"\(command)\" exited with status \(status); nothing was saved"
            }
        }
    }

    /// The editor command the environment names.
    public static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.allSatisfy({ $0 == " " }) { return value }
        }
        return "vi"
    }

    /// Runs the editor on a private copy of `bytes`; what the file holds when it exits 0.
    /// While it runs, SIGINT and SIGQUIT are ignored here (the editor gets them, as
    /// system(3) does), SIGTERM and SIGHUP are held back: the file is destroyed first,
    /// then the process dies of them.
    public static func edit(_ bytes: [UInt8], environment: [String: String], shm: String = "/dev/shm") throws -> [UInt8] {
        let folder = try PrivateScratchFile.memoryFolder(environment: environment, shm: shm)
        let editor = command(environment: environment)
        SignalCleanup.beginDeferring()
        let scratch: PrivateScratchFile
        do { scratch = try PrivateScratchFile(holding: bytes, name: "secret", in: folder) } catch {
            SignalCleanup.endDeferring()
            throw error
        }
        defer {
            scratch.destroy()
            SignalCleanup.endDeferring()
        }
        var savedInterrupt = sigaction(), savedQuit = sigaction(), ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGINT, &ignore, &savedInterrupt)
        sigaction(SIGQUIT, &ignore, &savedQuit)
        defer {
            sigaction(SIGINT, &savedInterrupt, nil)
            sigaction(SIGQUIT, &savedQuit, nil)
        }
        let pid = try ChildProcess.spawn("/bin/sh", ["sh", "-c", editor + " \"$@\"", "sh", scratch.path],
                                         streams: .init(defaultSignals: [SIGINT, SIGQUIT]))
        let status = ChildProcess.wait(pid)
        guard status == 0 else { throw Failure.editorFailed(command: editor, status: status) }
        return try scratch.read()
    }
}

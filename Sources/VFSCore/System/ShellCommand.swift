#if canImport(Glibc)
import Glibc
#endif

/// `sh -c COMMAND` in a child process (posix_spawn), waited for: the tools' hooks
/// (`vfs-fetch --exec`, the test suite's VFS_TEST_AFTER_READ). Foundation's Process is
/// not in FoundationEssentials.
public enum ShellCommand {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `command` with `environment` (the whole environment of the child), its
    /// standard input, output and error those of this process. Returns its exit status,
    /// or 128 + the signal's number if a signal ended it. `arguments` are the command's
    /// positional parameters ("$@"; $0 is "sh").
    public static func run(_ command: String, environment: [String: String], arguments extra: [String] = []) throws -> Int32 {
        let arguments = ["/bin/sh", "-c", command] + (extra.isEmpty ? [] : ["sh"] + extra)
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", nil, nil, &argv, &envp)
        guard status == 0 else {
            throw Failure(description: "cannot start /bin/sh: \(String(cString: strerror(status)))")
        }
        var wait: Int32 = 0
        while waitpid(pid, &wait, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "cannot wait for /bin/sh: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (macros).
        let signal = wait & 0x7F
        return signal == 0 ? (wait >> 8) & 0xFF : 128 + signal
    }
}

internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Other programs the keychain hands work to (an editor, a clipboard tool), started
/// with posix_spawn. They get this process's environment less the secrets it may
/// carry (VFS_PASSCODE, VFS_NEW_PASSCODE, VFS_PASSPHRASE).
enum ChildProcess {
    static let secretVariables = ["VFS_PASSCODE", "VFS_NEW_PASSCODE", "VFS_PASSPHRASE"]

    /// What a child does with its standard streams.
    struct Streams {
        /// Read end of a pipe for stdin; nil: inherited, or /dev/null when `quiet`.
        var input: Int32? = nil
        /// Write end of a pipe for stdout (a plugin's answers); nil: as `quiet` says.
        var output: Int32? = nil
        /// stderr on /dev/null (a plugin's own chatter), as age leaves it.
        var discardErrors = false
        /// stdin, stdout and stderr on /dev/null (unless `input`).
        var quiet = false
        /// In a session of its own: no terminal, not hung up with ours.
        var detached = false
        /// In a process group of its own (its id is the child's pid), so that whatever the
        /// child starts can be ended with it (`endGroup`).
        var ownProcessGroup = false
        /// Signals set back to their default action in the child (we ignore them meanwhile).
        var defaultSignals: [Int32] = []
    }

    /// Starts `executable` (a path) with `arguments` (argv[0] first).
    static func spawn(_ executable: String, _ arguments: [String], streams: Streams) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input = streams.input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else if streams.quiet {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let output = streams.output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else if streams.quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if streams.quiet || streams.discardErrors {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGDEF)
        if streams.detached { flags |= vfs_posix_spawn_setsid_flag() }
        if streams.ownProcessGroup && !streams.detached {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in streams.defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let environment = environmentLines().map { strdup($0) }
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], environment + [nil])
        guard spawned == 0 else { throw IOError("cannot run", path: executable, code: spawned) }
        return pid
    }

    /// Waits for `pid`: its exit status, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return 127 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Ends the process group of `pid` (spawned with `ownProcessGroup`): SIGKILL to what
    /// is left of it, `pid` included, then reaps `pid`. Call it before `pid` was reaped:
    /// while it is a zombie its id is not reused, so the group is still its own.
    static func endGroup(_ pid: pid_t) -> Int32 {
        kill(-pid, SIGKILL)
        return wait(pid)
    }

    /// Whether `pid` (a child not reaped yet) has exited; it stays a zombie, unreaped.
    static func hasExited(_ pid: pid_t) -> Bool {
        // Zeroed: with WNOHANG and nothing to report, Linux leaves si_signo 0.
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo == SIGCHLD
    }

    /// `name` found in the folders of `path` (a PATH value), as an executable file.
    static func find(_ name: String, path: String?) -> String? {
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + name
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// This process's environment as NAME=value lines, less the secret variables.
    private static func environmentLines() -> [String] {
        var lines: [String] = []
        var entry = environ
        while let line = entry.pointee {
            let text = String(cString: line)
            if !secretVariables.contains(where: { text.hasPrefix($0 + "=") }) { lines.append(text) }
            entry += 1
        }
        return lines
    }
}

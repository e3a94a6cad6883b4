#if canImport(Glibc)
import Glibc
#endif

/// The unlock agent: a background process that holds one keychain's master key in
/// locked memory and hands it to processes of the same user until `lock`, the
/// timeout, a signal, or the removal of its socket; then it wipes the key, removes
/// its socket and exits.
///
/// `start` runs in the command that unlocks: it spawns the tool's own binary with a
/// hidden subcommand, hands it the key over a pipe (never argv or the environment)
/// and waits until it listens. `serve` runs in that child.
public enum KeychainAgent {
    /// What the parent writes down the pipe: the keychain id, then the master key.
    static let handOffCount = KeychainFormat.idCount + KeychainFormat.masterKeyCount

    /// Starts an agent for the keychain at `keychainPath` and returns its pid once it
    /// listens. `arguments` (argv[1...]) select the tool's hidden serving subcommand,
    /// which gets the socket path as its last argument and calls `serve`.
    public static func start(keychainPath: String, keychainID: [UInt8], masterKey: SecretBytes,
                             arguments: [String]) throws -> pid_t {
        try AgentSocket.checkFolder(create: true)
        var keyPipe: [Int32] = [-1, -1], readyPipe: [Int32] = [-1, -1]
        guard makePipe(&keyPipe) else { throw IOError("cannot create a pipe") }
        guard makePipe(&readyPipe) else {
            close(keyPipe[0]); close(keyPipe[1])
            throw IOError("cannot create a pipe")
        }
        defer { close(keyPipe[0]); close(readyPipe[0]); close(readyPipe[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, keyPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, readyPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        let executable = ownExecutable()
        let socketPath = AgentSocket.path(forKeychain: keychainPath)
        let argv = ([String(executable.split(separator: "/").last ?? "vfs-keychain")] + arguments + [socketPath]).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        // An empty environment: nothing of the caller's (VFS_PASSCODE, say) lives on in the agent.
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv + [nil], &environment)
        guard spawned == 0 else {
            close(keyPipe[1])
            throw AgentError.startFailed(String(cString: strerror(spawned)))
        }
        // The hand-off is 48 bytes: it fits in the pipe, so this never blocks.
        var handOff = keychainID + masterKey.bytes
        let written = write(keyPipe[1], &handOff, handOff.count)
        handOff.wipe()
        close(keyPipe[1])
        close(readyPipe[1]); readyPipe[1] = -1
        guard written == handOff.count else { throw AgentError.startFailed("cannot hand the key over") }
        // The child says "ok" once it listens, or why it could not.
        var reply = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 256)
        var poller = pollfd(fd: readyPipe[0], events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 10_000) > 0 {
            let n = retryingEINTR { read(readyPipe[0], &chunk, chunk.count) }
            if n <= 0 { break }
            reply += chunk[0..<n]
        }
        let text = String(decoding: reply, as: UTF8.self)
        guard text == "ok\n" else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            throw AgentError.startFailed(text.isEmpty ? "it exited before listening" : text.trimmingNewline())
        }
        return pid
    }

    /// pipe(2) with both ends close-on-exec (Glibc does not export pipe2 to Swift).
    static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func ownExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The child's side: reads the key from stdin, detaches (new session, cwd /,
    /// stdio on /dev/null, not dumpable), listens, reports "ok" on stdout, and serves
    /// until it is told to stop. Returns when the agent has ended.
    public static func serve(socketPath: String, timeout: Int) {
        // Nothing inherited beyond stdio stays open (the test runner's pipes, say).
        for fd in 3..<1024 { close(Int32(fd)) }
        setsid()
        chdir("/")
        umask(0o077)
        ProcessHardening.apply()
        var handOff = [UInt8](repeating: 0, count: handOffCount)
        let complete = handOff.withUnsafeMutableBytes { buffer in
            (try? readExactly(fd: 0, buffer)) == buffer.count
        }
        let nullFD = open("/dev/null", O_RDWR)
        dup2(nullFD, 0)
        guard complete else { report("no key was handed over\n"); return }
        let id = Array(handOff[0..<KeychainFormat.idCount])
        let key = SecretBytes(copying: handOff[KeychainFormat.idCount...])
        handOff.wipe()
        key.withUnsafeBytes { _ = mlock($0.baseAddress, $0.count) }
        let server: AgentServer
        do {
            server = try AgentServer(socketPath: socketPath, keychainID: id, masterKey: key, timeout: timeout)
        } catch {
            report("\(error)\n")
            return
        }
        // Handlers first: "ok" lets unlock return, and a SIGTERM right after it must
        // still wipe the key and remove the socket, not kill the agent outright.
        server.installSignalHandlers()
        report("ok\n")
        dup2(nullFD, 1)
        if nullFD > 2 { close(nullFD) }
        server.run()
    }

    private static func report(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

}

/// The agent's listening loop (one request per connection, one at a time).
final class AgentServer {
    let socketPath: String
    let keychainID: [UInt8]
    private var masterKey: SecretBytes?
    private let deadline: Double
    private let listener: Int32
    private var socketInode: ino_t = 0

    nonisolated(unsafe) static var signalPipe: [Int32] = [-1, -1]

    init(socketPath: String, keychainID: [UInt8], masterKey: SecretBytes, timeout: Int) throws {
        self.socketPath = socketPath
        self.keychainID = keychainID
        self.masterKey = masterKey
        deadline = Self.now() + Double(timeout)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError("cannot create a socket") }
        // A socket left by an agent that was killed: nobody answers on it.
        if access(socketPath, F_OK) == 0 && AgentClient(socketPath: socketPath).status() == nil { unlink(socketPath) }
        let bound: Int32
        do { bound = try AgentSocket.withAddress(socketPath) { bind(fd, $0, $1) } } catch { close(fd); throw error }
        guard bound == 0, listen(fd, 16) == 0 else {
            let error = IOError(errno == EADDRINUSE ? "another agent listens on" : "cannot listen on", path: socketPath)
            close(fd)
            throw error
        }
        chmod(socketPath, 0o600)
        var info = stat()
        if stat(socketPath, &info) == 0 { socketInode = info.st_ino }
        listener = fd
    }

    /// Seconds on a clock that keeps counting while the machine sleeps.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    var secondsLeft: Int { max(0, Int((deadline - Self.now()).rounded(.up))) }

    /// Serves until the timeout, a signal, or the socket's removal (signal handlers are
    /// installed by `installSignalHandlers()` before the agent reports ready).
    func run() {
        while masterKey != nil {
            let left = deadline - Self.now()
            guard left > 0, ownsSocket else { break }
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: Self.signalPipe[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(min(1000, left * 1000 + 1)))
            if ready < 0 && errno != EINTR { break }
            if fds[1].revents != 0 { break }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let connection = accept(listener, nil, nil)
                if connection >= 0 {
                    handle(connection)
                    close(connection)
                }
            }
        }
        stop()
    }

    /// False once the socket path was removed or taken by another agent.
    private var ownsSocket: Bool {
        var info = stat()
        return lstat(socketPath, &info) == 0 && info.st_ino == socketInode
    }

    private func stop() {
        masterKey = nil   // SecretBytes wipes it
        if ownsSocket { unlink(socketPath) }
        close(listener)
    }

    private func handle(_ fd: Int32) {
        AgentSocket.setTimeouts(fd, seconds: 2)
        guard AgentSocket.peerUID(fd) == getuid() else { return }
        var head = [UInt8](repeating: 0, count: 4)
        guard head.withUnsafeMutableBytes({ AgentSocket.readExactly(fd, $0) }), head[0] == AgentSocket.protocolVersion else { return }
        let length = Int(head[2]) << 8 | Int(head[3])
        guard length <= 256 else { return }
        var payload = [UInt8](repeating: 0, count: length)
        defer { payload.wipe() }
        guard payload.withUnsafeMutableBytes({ AgentSocket.readExactly(fd, $0) }) else { return }
        switch AgentSocket.Operation(rawValue: head[1]) {
        case .key:
            if payload == keychainID, let masterKey {
                masterKey.withUnsafeBytes { key in
                    let reply = SecretBytes(count: 3 + key.count) { AgentSocket.frame(0, key, into: $0) }
                    _ = reply.withUnsafeBytes { AgentSocket.writeAll(fd, $0) }
                }
            } else {
                send(fd, status: 1, [])
            }
        case .status:
            let seconds = UInt32(min(secondsLeft, Int(UInt32.max)))
            send(fd, status: 0, [UInt8(seconds >> 24), UInt8((seconds >> 16) & 0xff), UInt8((seconds >> 8) & 0xff), UInt8(seconds & 0xff)] + keychainID)
        case .lock:
            send(fd, status: 0, [])
            masterKey = nil
        case .rekey:
            if payload.count == KeychainFormat.idCount + KeychainFormat.masterKeyCount,
               Array(payload[0..<KeychainFormat.idCount]) == keychainID, masterKey != nil {
                let key = SecretBytes(copying: payload[KeychainFormat.idCount...])
                key.withUnsafeBytes { _ = mlock($0.baseAddress, $0.count) }
                masterKey = key
                send(fd, status: 0, [])
            } else {
                send(fd, status: 1, [])
            }
        case nil:
            send(fd, status: 2, [])
        }
    }

    private func send(_ fd: Int32, status: UInt8, _ payload: [UInt8]) {
        var message = [UInt8](repeating: 0, count: 3 + payload.count)
        payload.withUnsafeBytes { p in message.withUnsafeMutableBytes { AgentSocket.frame(status, p, into: $0) } }
        _ = message.withUnsafeBytes { AgentSocket.writeAll(fd, $0) }
    }

    /// SIGTERM, SIGINT and SIGHUP end the loop through a self-pipe, so the key is
    /// wiped and the socket removed as on `lock`.
    func installSignalHandlers() {
        var fds: [Int32] = [-1, -1]
        guard KeychainAgent.makePipe(&fds) else { return }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        Self.signalPipe = fds
        signal(SIGPIPE, SIG_IGN)
        // The mask is inherited through posix_spawn: whoever started unlock may block these.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&unblock, sig) }
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(AgentServer.signalPipe[1], &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }
}

extension AgentClient {
    init(socketPath: String) { self.socketPath = socketPath }
}

extension String {
    func trimmingNewline() -> String {
        var s = Substring(self)
        while s.last == "\n" { s = s.dropLast() }
        return String(s)
    }
}

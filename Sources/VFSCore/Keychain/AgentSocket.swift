#if canImport(Glibc)
import Glibc
#endif

/// Where the unlock agent of a keychain listens, and the wire between it and clients.
///
/// The socket lives in a folder private to the user: `$XDG_RUNTIME_DIR/vfs/`, else
/// `/run/user/UID/vfs/`, else `/tmp/vfs-UID/` (or `home/agent` when something not ours
/// holds that name: see VFSPaths.agentFolder), created 0700 and refused if another user
/// owns it or others may enter it. Its name comes from the keychain's real path, so each keychain has its
/// own agent. Both ends check the other's uid (SO_PEERCRED).
///
/// A request is `[1, op, length u16, payload]`, a reply `[status, length u16, payload]`:
/// - `K` + keychain id → status 0 + the 32-byte master key, or 1 if the agent holds another keychain;
/// - `S` → status 0 + seconds left (u32) + the keychain id;
/// - `L` → status 0, then the agent wipes the key, removes its socket and exits;
/// - `R` + keychain id + new master key → status 0 once the agent holds the new key
///   (after `passcode`, `recover` or `questions` replaced it), or 1 for another keychain.
enum AgentSocket {
    enum Operation: UInt8 {
        case key = 0x4B      // K
        case status = 0x53   // S
        case lock = 0x4C     // L
        case rekey = 0x52    // R
    }

    static let protocolVersion: UInt8 = 1

    /// The private folder the sockets live in (VFSPaths.agentFolder).
    static var folder: String { VFSPaths.current.agentFolder }

    /// The socket of the agent for the keychain at `keychainPath`.
    static func path(forKeychain keychainPath: String) -> String {
        var resolved = keychainPath
        if let real = realpath(keychainPath, nil) {
            resolved = String(cString: real)
            free(real)
        } else if !keychainPath.hasPrefix("/"), let cwd = getcwd(nil, 0) {
            resolved = String(cString: cwd) + "/" + keychainPath
            free(cwd)
        }
        return folder + "/agent-" + SHA256.hash(Array(resolved.utf8)).prefix(8).hexString + ".sock"
    }

    /// Creates the folder if asked, and checks that it is ours and private.
    /// Returns false when it does not exist (and was not to be created).
    @discardableResult
    static func checkFolder(create: Bool) throws -> Bool {
        let path = folder
        if create {
            // Missing parents too (home/agent may be the first thing in home), all 0700.
            var current = ""
            for part in path.split(separator: "/").dropLast() {
                current += "/" + part
                if access(current, F_OK) != 0 && mkdir(current, 0o700) != 0 && errno != EEXIST {
                    throw IOError("cannot create folder", path: current)
                }
            }
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw IOError("cannot create folder", path: path) }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT && !create { return false }
            throw IOError("cannot read", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
            throw AgentError.unsafeFolder(path)
        }
        // Kept out of backups, always (nodump and CACHEDIR.TAG), once it is known to be ours.
        if create { BackupExclusion.markFolder(path) }
        return true
    }

    /// The uid of the process at the other end of a Unix socket.
    static func peerUID(_ fd: Int32) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Linux); Glibc does not export it to Swift.
        var credentials = [Int32](repeating: -1, count: 3)
        var length = socklen_t(MemoryLayout<Int32>.size * 3)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, length == socklen_t(MemoryLayout<Int32>.size * 3) else { return nil }
        return uid_t(bitPattern: credentials[1])
    }

    /// Runs `body` (bind or connect) with the address of the socket at `path`. A path
    /// longer than sun_path's 107 bytes (a deep XDG_RUNTIME_DIR, TMPDIR or VFS_HOME) is
    /// reached through its folder instead: a descriptor of the folder (ours, 0700), named
    /// `/proc/self/fd/N/NAME`, which bind and connect resolve to the same socket (as
    /// systemd does for long socket paths). `body` returns 0 or -1 with errno set.
    static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        var bytes = Array(path.utf8)
        var folder: Int32 = -1
        defer { if folder >= 0 { close(folder) } }
        if bytes.count >= capacity, let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            folder = open(String(path[..<slash]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { throw IOError("cannot open the folder of", path: path) }
            bytes = Array("/proc/self/fd/\(folder)/\(path[path.index(after: slash)...])".utf8)
        }
        guard bytes.count < capacity else { throw AgentError.pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Sets send and receive timeouts on a socket, so neither end waits forever.
    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// All of `bytes` sent (no SIGPIPE when the peer has gone), or false.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? VFSCore.writeAll(bytes) { rest, count, _ in send(fd, rest, count, Int32(MSG_NOSIGNAL)) }) != nil
    }

    /// `buffer` filled, or false (an error, or the peer closed first).
    static func readExactly(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        (try? VFSCore.readExactly(buffer) { rest, count, _ in recv(fd, rest, count, 0) }) == buffer.count
    }

    /// One framed message: a leading byte, a u16 length, the payload.
    static func frame(_ first: UInt8, _ payload: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        out[0] = first
        out[1] = UInt8(payload.count >> 8)
        out[2] = UInt8(payload.count & 0xff)
        if payload.count > 0 { UnsafeMutableRawBufferPointer(rebasing: out[3...]).copyMemory(from: payload) }
    }
}

/// Problems with the agent itself (not with the keychain).
public enum AgentError: Error, CustomStringConvertible {
    case unsafeFolder(String)
    case pathTooLong(String)
    case startFailed(String)

    public var description: String {
        switch self {
        case .unsafeFolder(let path): return "the agent folder \"\(path)\" is not a private folder of this user"
        case .pathTooLong(let path): return "the agent socket path \"\(path)\" is too long for a Unix socket"
        case .startFailed(let why): return "cannot start the unlock agent: \(why)"
        }
    }
}

/// What `status` reports about a running agent.
public struct AgentStatus: Sendable {
    public let secondsLeft: Int
    public let keychainID: [UInt8]
}

/// Talks to the agent of one keychain. Every call returns nil (or false) when no
/// agent is listening, so callers fall back to a passcode.
public struct AgentClient: Sendable {
    public let socketPath: String

    public init(keychainPath: String) {
        socketPath = AgentSocket.path(forKeychain: keychainPath)
    }

    /// The master key of the keychain with `keychainID`, if the agent holds it.
    public func masterKey(keychainID: [UInt8]) -> SecretBytes? {
        guard let reply = exchange(.key, keychainID, replyCount: KeychainFormat.masterKeyCount), reply.status == 0 else { return nil }
        return reply.payload
    }

    public func status() -> AgentStatus? {
        guard let reply = exchange(.status, [], replyCount: 4 + KeychainFormat.idCount), reply.status == 0 else { return nil }
        return reply.payload.withUnsafeBytes { raw in
            let seconds = Int(raw[0]) << 24 | Int(raw[1]) << 16 | Int(raw[2]) << 8 | Int(raw[3])
            return AgentStatus(secondsLeft: seconds, keychainID: Array(raw[4...]))
        }
    }

    /// Hands the agent the keychain's new master key after a rotation; true if an agent
    /// of this keychain took it.
    public func rekey(keychainID: [UInt8], masterKey: SecretBytes) -> Bool {
        var payload = keychainID + masterKey.bytes
        defer { payload.wipe() }
        guard let reply = exchange(.rekey, payload, replyCount: 0) else { return false }
        return reply.status == 0
    }

    /// Asks the agent to wipe its key and exit; true if one was running. Waits until
    /// its socket is gone, so a new agent can take its place.
    @discardableResult
    public func lock() -> Bool {
        guard let reply = exchange(.lock, [], replyCount: 0), reply.status == 0 else { return false }
        for _ in 0..<200 where access(socketPath, F_OK) == 0 { usleep(10_000) }
        return true
    }

    /// One request and its reply, over a new connection. The reply payload is held as a
    /// secret (it may be a key); a short or foreign reply counts as no agent.
    private func exchange(_ operation: AgentSocket.Operation, _ payload: [UInt8], replyCount: Int) -> (status: UInt8, payload: SecretBytes)? {
        guard (try? AgentSocket.checkFolder(create: false)) == true, access(socketPath, F_OK) == 0 else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        AgentSocket.setTimeouts(fd, seconds: 5)
        guard let connected = try? AgentSocket.withAddress(socketPath, { connect(fd, $0, $1) }),
              connected == 0, AgentSocket.peerUID(fd) == getuid() else { return nil }
        var request = [AgentSocket.protocolVersion, operation.rawValue, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)] + payload
        defer { request.wipe() }
        guard request.withUnsafeBytes({ AgentSocket.writeAll(fd, $0) }) else { return nil }
        var head = [UInt8](repeating: 0, count: 3)
        guard head.withUnsafeMutableBytes({ AgentSocket.readExactly(fd, $0) }) else { return nil }
        let length = Int(head[1]) << 8 | Int(head[2])
        guard head[0] != 0 || length == replyCount else { return nil }
        var ok = true
        let body = SecretBytes(count: length) { ok = AgentSocket.readExactly(fd, $0) }
        return ok ? (head[0], body) : nil
    }
}

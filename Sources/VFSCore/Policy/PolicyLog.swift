#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Who made a change: the user name and uid of the process.
public struct PolicyActor: Sendable, Equatable {
    public var user: String
    public var uid: UInt32

    public init(user: String, uid: UInt32) {
        self.user = user
        self.uid = uid
    }

    /// The real user of this process (its passwd name, else `$USER`, else the uid).
    public static var current: PolicyActor {
        let uid = getuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name {
            return PolicyActor(user: String(cString: name), uid: uid)
        }
        let user = getenv("USER").map { String(cString: $0) } ?? String(uid)
        return PolicyActor(user: user, uid: uid)
    }
}

/// One line of the change log (`POLICY.log`, JSON lines beside the policy): who, when,
/// what. Written under the policy's lock after the policy itself.
public struct PolicyLogEntry: Codable, Sendable, Equatable {
    public enum Action: String, Codable, Sendable { case add, update, remove }

    public var time: Date
    public var user: String
    public var uid: UInt32
    public var action: Action
    public var id: String
    public var app: String
    /// The fields the change set (every field for add and remove).
    public var fields: [String]
    /// Where the change came from when not a single command, e.g. `import team.json`.
    public var via: String?

    public init(time: Date, actor: PolicyActor, action: Action, item: PolicyItem, fields: [String], via: String? = nil) {
        self.time = time
        self.user = actor.user
        self.uid = actor.uid
        self.action = action
        self.id = item.id
        self.app = item.app
        self.fields = fields
        self.via = via
    }
}

/// The log file: appended one line per change, read back for `vfs-policy log`.
enum PolicyLogFile {
    static func append(_ entries: [PolicyLogEntry], to path: String) throws {
        guard !entries.isEmpty else { return }
        let encoder = PolicyCodec.encoder(pretty: false)
        var bytes = [UInt8]()
        for entry in entries {
            bytes += Array(try encoder.encode(entry)) + [0x0A]
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw IOError("cannot open the policy log", path: path) }
        defer { close(fd) }
        do {
            try writeAll(fd: fd, bytes)
        } catch {
            throw IOError("cannot write the policy log", path: path, code: error.code)
        }
        guard fsync(fd) == 0 else { throw IOError("cannot sync the policy log", path: path) }
    }

    /// Every entry, oldest first; a missing log is empty. A bad line is an error naming it.
    static func read(_ path: String) throws -> [PolicyLogEntry] {
        guard let bytes = try PolicyStore.readIfPresent(path) else { return [] }
        var entries = [PolicyLogEntry]()
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { continue }
            entries.append(try PolicyCodec.decodeValue(Array(line), source: path, lineOffset: lineNumber - 1))
        }
        return entries
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where the toolkit keeps its state and finds its services, worked out from one
/// environment. This is the only place that reads the environment for a path or an
/// address (the secrets in VFS_PASSCODE/VFS_PASSPHRASE are read by the secret
/// sources, and PolicyLog records $USER as the actor). Tests build one from a
/// dictionary instead of changing the process's environment.
///
/// - `home`: `$VFS_HOME`, else `$XDG_DATA_HOME/vfs` (when absolute, as the XDG spec
///   says), else `HOME/.local/share/vfs`, where HOME is `$HOME` when absolute, else the
///   user's home folder in the password database (cron, systemd and `env -i` runs have
///   no HOME). With neither, every path below home is `VFSPathsError.noHome`: a
///   relative default would make the keychain and the policy depend on the folder a
///   command runs in.
/// - `keychain`: `$VFS_KEYCHAIN`, else `home/keychain`.
/// - `policyFile`: `$VFS_POLICY`, else `home/policy.json`.
/// - `groupsFolder`: `home/groups`, one age recipients file per group.
/// - `agentFolder`: the unlock agents' private socket folder.
/// - `temporaryFolder`: `$TMPDIR`, else `/tmp`.
/// - `toolConfig`: `home/config.json`, the tools' settings (ToolConfig).
/// - For the relay: `relayConfig` (`home/relay.json`, the device's relay settings),
///   `relayURL` (`$VFS_RELAY`, nil when unset: no relay), `relayCACert`
///   (`$VFS_RELAY_CACERT`, a private CA for an https:// relay) and `policyCache`
///   (`home/policy-cache`, where a relay-backed PolicySource keeps the lists it
///   fetched; see PolicySource); `relayData` (`home/relay`, the relay server's
///   database and blobs).
public struct VFSPaths: Sendable {
    public let environment: [String: String]
    let userID: uid_t
    /// The user's home folder in the password database (read once, at init).
    let passwordHome: String?
    /// Where `/tmp/vfs-UID` is made (another folder in tests).
    var sharedTemporaryRoot = "/tmp"

    public init(environment: [String: String], userID: uid_t = getuid()) {
        self.init(environment: environment, userID: userID, passwordHome: VFSPaths.passwordDatabaseHome(of: userID))
    }

    /// With the password database's answer given (tests).
    init(environment: [String: String], userID: uid_t, passwordHome: String?) {
        self.environment = environment
        self.userID = userID
        self.passwordHome = passwordHome
    }

    /// `pw_dir` of `userID`'s entry (getpwuid_r), nil without an entry or an absolute folder.
    static func passwordDatabaseHome(of userID: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(userID, &entry, &buffer, buffer.count, &result) == 0, result != nil, let dir = entry.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.hasPrefix("/") ? home : nil
    }

    /// The paths of this process's environment.
    public static var current: VFSPaths { VFSPaths(environment: ProcessInfo.processInfo.environment) }

    /// A variable that is set and not empty.
    func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    public var home: String {
        get throws {
            if let value = value("VFS_HOME") { return value }
            if let xdg = value("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/vfs" }
            if let home = value("HOME"), home.hasPrefix("/") { return home + "/.local/share/vfs" }
            if let home = passwordHome { return home + "/.local/share/vfs" }
            throw VFSPathsError.noHome(userID: userID)
        }
    }

    public var keychain: String { get throws { try value("VFS_KEYCHAIN") ?? home + "/keychain" } }

    /// The keychain's folder when it is the toolkit's own (`home`), so that it may be
    /// kept out of backups as a whole; nil when $VFS_KEYCHAIN puts the keychain in a
    /// folder of the user's choosing (a home folder must not get a CACHEDIR.TAG).
    public var ownKeychainFolder: String? { value("VFS_KEYCHAIN") == nil ? try? home : nil }

    public var policyFile: String { get throws { try value("VFS_POLICY") ?? home + "/policy.json" } }

    var groupsFolder: String { get throws { try home + "/groups" } }

    /// The private folder the agent sockets live in: under `$XDG_RUNTIME_DIR` (when it
    /// is absolute), else under `/run/user/UID` when that is ours and private (cron
    /// jobs get no XDG_RUNTIME_DIR but must find the agent the login session
    /// started), else `/tmp/vfs-UID`, unless something that is not our folder holds
    /// that name (another user can create it first in the shared /tmp, or plant a
    /// symlink): then `home/agent`, which no other user can create. Every process
    /// decides alike, so the clients find the agent.
    public var agentFolder: String { agentFolderChoice.path }

    /// The agent folder, and the /tmp folder passed over for it (to say so), if any.
    public var agentFolderChoice: (path: String, passedOver: String?) {
        if let runtime = value("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return (runtime + "/vfs", nil) }
        var info = stat()
        let userRuntime = "/run/user/\(userID)"
        if lstat(userRuntime, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == userID, info.st_mode & 0o077 == 0 {
            return (userRuntime + "/vfs", nil)
        }
        let shared = sharedTemporaryRoot + "/vfs-\(userID)"
        if lstat(shared, &info) != 0 || ((info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == userID) { return (shared, nil) }
        guard let home = try? home else { return (shared, nil) }
        return (home + "/agent", shared)
    }

    public var temporaryFolder: String { value("TMPDIR") ?? "/tmp" }

    /// The device's relay settings (relay URL, device id and name), kept by vfs-device enroll.
    public var relayConfig: String { get throws { try home + "/relay.json" } }

    /// The relay's base URL from `$VFS_RELAY`; nil means no relay is configured.
    public var relayURL: String? { value("VFS_RELAY") }

    /// `$VFS_RELAY_CACERT`: a PEM file of the CA certificates to trust for an https://
    /// relay instead of the system's (curl's --cacert); it overrides relay.json's `ca`.
    public var relayCACert: String? { value("VFS_RELAY_CACERT") }

    /// The relay server's data folder (`vfs-relay --data` default): `home/relay`.
    public var relayData: String { get throws { try home + "/relay" } }

    /// Where this device keeps its copy of the organisation's policy on the relay
    /// (`organisation.json`, see RelayPolicyCache).
    public var policyCache: String { get throws { try home + "/policy-cache" } }

    /// The tools' settings (`home/config.json`, see ToolConfig): `policy.source`.
    var toolConfig: String { get throws { try home + "/config.json" } }
}

/// No folder to keep the toolkit's files in.
public enum VFSPathsError: Error, Equatable, CustomStringConvertible {
    /// HOME is unset or relative and the password database has no home for the user.
    case noHome(userID: uid_t)

    public var description: String {
        switch self {
        case .noHome(let uid): return "no home folder: HOME is not an absolute path and user \(uid) has no home in the password database"
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the toolkit keeps its state and finds its services, worked out from one
/// environment. This is the only place that reads the environment for a path or an
/// address (the secrets in VFS_PASSCODE/VFS_PASSPHRASE are read by the secret
/// sources, and PolicyLog records $USER as the actor). Tests build one from a
/// dictionary instead of changing the process's environment.
///
/// - `home`: `$VFS_HOME`, else `$XDG_DATA_HOME/vfs`, else `~/.local/share/vfs`.
/// - `keychain`: `$VFS_KEYCHAIN`, else `home/keychain`.
/// - `policyFile`: `$VFS_POLICY`, else `home/policy.json`.
/// - `groupsFolder`: `home/groups`, one age recipients file per group.
/// - `agentFolder`: the unlock agents' private socket folder.
/// - `temporaryFolder`: `$TMPDIR`, else `/tmp`.
/// - For the relay: `relayConfig` (`home/relay.json`, the device's relay settings),
///   `relayURL` (`$VFS_RELAY`, nil when unset: no relay) and `policyCache`
///   (`home/policy-cache`, where a relay-backed PolicySource keeps the lists it
///   fetched; see PolicySource); `relayData` (`home/relay`, the relay server's
///   database and blobs).
public struct VFSPaths: Sendable {
    public let environment: [String: String]
    let userID: uid_t

    public init(environment: [String: String], userID: uid_t = getuid()) {
        self.environment = environment
        self.userID = userID
    }

    /// The paths of this process's environment.
    public static var current: VFSPaths { VFSPaths(environment: ProcessInfo.processInfo.environment) }

    /// A variable that is set and not empty.
    func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    public var home: String {
        if let value = value("VFS_HOME") { return value }
        if let xdg = value("XDG_DATA_HOME") { return xdg + "/vfs" }
        return (environment["HOME"] ?? ".") + "/.local/share/vfs"
    }

    public var keychain: String { value("VFS_KEYCHAIN") ?? home + "/keychain" }

    public var policyFile: String { value("VFS_POLICY") ?? home + "/policy.json" }

    public var groupsFolder: String { home + "/groups" }

    /// The private folder the agent sockets live in: under `$XDG_RUNTIME_DIR` (when it
    /// is absolute), else under `/run/user/UID` when that is ours and private (cron
    /// jobs get no XDG_RUNTIME_DIR but must find the agent the login session
    /// started), else `/tmp/vfs-UID`.
    public var agentFolder: String {
        if let runtime = value("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return runtime + "/vfs" }
        var info = stat()
        let userRuntime = "/run/user/\(userID)"
        if lstat(userRuntime, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == userID, info.st_mode & 0o077 == 0 {
            return userRuntime + "/vfs"
        }
        return "/tmp/vfs-\(userID)"
    }

    public var temporaryFolder: String { value("TMPDIR") ?? "/tmp" }

    /// The device's relay settings (for the relay tools; nothing reads it yet).
    public var relayConfig: String { home + "/relay.json" }

    /// The relay's base URL from `$VFS_RELAY`; nil means no relay is configured.
    public var relayURL: String? { value("VFS_RELAY") }

    /// The relay server's data folder (`vfs-relay --data` default): `home/relay`.
    public var relayData: String { home + "/relay" }

    /// Where a relay-backed PolicySource caches fetched policies (nothing writes it yet).
    public var policyCache: String { home + "/policy-cache" }
}

import VFSCore

/// The policy source the tools decide with: the relay copy when asked (`--relay`), a
/// file when named (`--policy PATH`, `$VFS_POLICY`), else what `policy.source` in
/// `$VFS_HOME/config.json` says (ToolConfig): `relay` is this device's copy of its
/// organisation's list (RelayPolicyCache), `file` (the default) the local policy file.
/// vfs-policy, vfs-unwrap --for and vfs-fetch --for all choose here, so they decide alike.
public enum PolicyChoice {
    public static func source(paths: VFSPaths = .current, relay: Bool = false, file: String? = nil) throws -> PolicySource {
        if relay { return try RelayPolicyCache(paths: paths) }
        if let file { return PolicyStore(path: file) }
        if let named = paths.environment["VFS_POLICY"], !named.isEmpty { return PolicyStore(path: named) }
        if try ToolConfig.load(paths: paths).policySource == .relay { return try RelayPolicyCache(paths: paths) }
        return PolicyStore(path: try paths.policyFile)
    }
}

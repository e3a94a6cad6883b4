import VFSCore

extension ToolPaths {
    /// The local policy: `VFS_POLICY`, else `$VFS_HOME/policy.json` (see `ToolPaths.home`).
    public static var policyFile: String {
        if let value = environment("VFS_POLICY"), !value.isEmpty { return value }
        return home + "/policy.json"
    }
}

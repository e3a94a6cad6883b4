import VFSCore

/// The policy source the tools decide with, chosen from the configuration: today
/// always the local file (`VFSPaths.policyFile`). The relay work replaces the body
/// with a relay-backed source when `VFSPaths.relayURL` is set; callers don't change.
public enum PolicyChoice {
    public static func source(paths: VFSPaths = .current) -> PolicySource {
        PolicyStore(path: paths.policyFile)
    }
}

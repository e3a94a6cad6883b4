import VFSCommandLine
import VFSCore

/// After the master key was replaced.
enum KeyRotation {
    /// A running unlock agent gets the new key, so the keychain stays unlocked.
    static func tellAgent(store: KeychainStore, keychainID: [UInt8], newKey: SecretBytes) {
        if AgentClient(keychainPath: store.path).rekey(keychainID: keychainID, masterKey: newKey) {
            Diagnostics.info("the unlock agent holds the new key")
        }
    }

    static func warnDroppedRecovery() {
        Diagnostics.warn("the recovery questions were set by an older vfs-keychain and cannot follow a new master key: they were removed")
        Diagnostics.hint("set them again with vfs-keychain questions --questions FILE")
    }
}

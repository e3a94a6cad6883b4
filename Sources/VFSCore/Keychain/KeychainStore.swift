#if canImport(Glibc)
import Glibc
#endif

/// A keychain file on disk and the rules for changing it without ever losing an entry.
///
/// Reads take the `PATH.lock` sidecar lock shared; every change takes it exclusive,
/// re-reads the file as it is now, refuses to go on if that file does not open
/// (a damaged keychain is never overwritten), keeps it as `PATH.prev` (a hard link
/// to the verified file, so the previous good copy costs no copying), and writes the
/// new file through `AtomicOutputFile` (temp in the same folder, fsync, rename, fsync
/// the folder) with mode 0600. A writer killed at any moment leaves either the old
/// file or the new one.
public struct KeychainStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The previous good copy, replaced only by a file that opened with the master key.
    public var backupPath: String { path + ".prev" }

    public var exists: Bool { access(path, F_OK) == 0 }

    var existingBackup: String? { access(backupPath, F_OK) == 0 ? backupPath : nil }

    /// The keychain as it is now, read under a shared lock.
    public func read() throws -> SealedKeychain {
        guard exists else { throw KeychainError.notFound(path: path) }
        let bytes = try FileLock.withLock(for: path, exclusive: false) { try readBytes() }
        return try SealedKeychain(bytes: bytes, path: path, backup: existingBackup)
    }

    private func readBytes() throws -> [UInt8] {
        do { return try FileDescriptorSource(path: path).readAll() } catch let error as IOError where error.code == ENOENT {
            throw KeychainError.notFound(path: path)
        }
    }

    /// Writes a new keychain; fails with `.exists` if there is one (even a damaged one).
    /// The folder must exist.
    public func create(header: KeychainHeader, masterKey: SecretBytes, entries: [KeychainEntry] = []) throws {
        let bytes = try KeychainFormat.seal(header: header, masterKey: masterKey, entries: entries)
        try FileLock.withLock(for: path, exclusive: true) {
            guard !exists else { throw KeychainError.exists(path: path) }
            let file = try AtomicOutputFile(path: path, mode: 0o600, exclusive: true)
            try file.write(bytes)
            try file.commit(exclusive: true)
        }
    }

    /// Creates a keychain with a new master key, wrapped under `passcode` and, with
    /// `recovery`, under the answers to its questions. Fails with `.exists` if there is
    /// one. The folder must exist.
    public func create(passcode: SecretBytes, recovery: (questions: [String], answers: [String])?, workFactor: Int) throws {
        let masterKey = try KeychainFormat.newMasterKey()
        let passcodeSlot = try KeySlot.wrap(masterKey, kind: .passcode, secret: passcode, workFactor: workFactor)
        let recoverySlot = try recovery.map {
            try KeySlot.wrap(masterKey, kind: .recovery, secret: RecoveryAnswers.secret($0.answers), workFactor: workFactor, questions: $0.questions)
        }
        try create(header: KeychainHeader.new(passcode: passcodeSlot, recovery: recoverySlot), masterKey: masterKey)
    }

    /// The folder the file is in; empty for a name in the current folder.
    public var folder: String {
        path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    /// Changes the entries of the keychain as it is when the lock is held, and saves.
    /// `change` returns its result and whether anything changed (nothing is written if not).
    @discardableResult
    public func updateEntries<R>(keychainID: [UInt8], masterKey: SecretBytes,
                                 _ change: (inout [KeychainEntry]) throws -> (result: R, changed: Bool)) throws -> R {
        try FileLock.withLock(for: path, exclusive: true) {
            let current = try currentFile(keychainID: keychainID)
            var entries = try current.sealed.open(masterKey: masterKey)
            let (result, changed) = try change(&entries)
            if changed {
                let bytes = try KeychainFormat.seal(header: current.sealed.header, masterKey: masterKey, entries: entries)
                try replace(with: bytes)
            }
            return result
        }
    }

    /// Replaces the header (a rewrapped slot) of the keychain as it is when the lock is
    /// held; the sealed body is kept byte for byte. The backup becomes the new file, so
    /// an old passcode opens neither.
    public func updateHeader(keychainID: [UInt8], masterKey: SecretBytes, _ change: (KeychainHeader) throws -> KeychainHeader) throws {
        try FileLock.withLock(for: path, exclusive: true) {
            let current = try currentFile(keychainID: keychainID)
            // Open it all: a damaged body must not be carried into a new file either.
            _ = try current.sealed.open(masterKey: masterKey)
            let header = try change(current.sealed.header)
            try replace(with: KeychainFormat.seal(header: header, masterKey: masterKey, keepingBodyOf: current.sealed))
            // The old header still opens with the old passcode: the backup must not.
            // The body is the same, so the new file is the good copy now.
            try keepBackup()
        }
    }

    /// The file under the exclusive lock; it must still be the keychain the key is for.
    private func currentFile(keychainID: [UInt8]) throws -> (sealed: SealedKeychain, bytes: [UInt8]) {
        guard exists else { throw KeychainError.notFound(path: path) }
        let bytes = try readBytes()
        let sealed = try SealedKeychain(bytes: bytes, path: path, backup: existingBackup)
        guard sealed.header.id == keychainID else { throw KeychainStoreError.replaced(path: path) }
        return (sealed, bytes)
    }

    /// Keeps the current (verified) file as the backup, then puts `bytes` in its place.
    private func replace(with bytes: [UInt8]) throws {
        removeStaleTemporaries()
        try keepBackup()
        let file = try AtomicOutputFile(path: path, mode: 0o600)
        try file.write(bytes)
        try file.commit()
    }

    /// Temporary files a killed writer left behind (SIGKILL leaves no chance to clean
    /// up). Safe under the exclusive lock: no other writer is between create and rename.
    private func removeStaleTemporaries() {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let prefixes = [".\(base).tmp-", "\(base).prev.tmp-", ".\(base).prev.tmp-"]
        guard let dir = opendir(folder.isEmpty ? "/" : folder) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if prefixes.contains(where: { name.hasPrefix($0) }) { unlink((folder.isEmpty ? "" : folder) + "/" + name) }
        }
    }

    /// Hard-links the current file to `PATH.prev` (through a temporary name and a
    /// rename, so the backup is always whole); copies it where links are not possible.
    private func keepBackup() throws {
        let temporary = backupPath + ".tmp-\(getpid())"
        unlink(temporary)
        if link(path, temporary) == 0 {
            guard rename(temporary, backupPath) == 0 else {
                let error = IOError("cannot rename into place", path: backupPath)
                unlink(temporary)
                throw error
            }
            // When the backup already is this file (after passcode or recover), rename
            // does nothing and leaves the temporary name: remove it.
            unlink(temporary)
            return
        }
        try AtomicOutputFile.write(try readBytes(), to: backupPath, mode: 0o600)
    }
}

/// Store failures that are not about the file's content.
public enum KeychainStoreError: Error, CustomStringConvertible {
    /// The keychain was replaced (a new `init`) between unlocking it and saving.
    case replaced(path: String)

    public var description: String {
        switch self {
        case .replaced(let path): return "the keychain \"\(path)\" was replaced by another keychain while this command ran"
        }
    }

}

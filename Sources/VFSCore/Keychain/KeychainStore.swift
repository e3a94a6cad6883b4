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
/// file or the new one. Every save has the next epoch, recorded in `PATH.epoch`
/// (`KeychainEpochs`) so that an older copy put in its place is noticed.
///
/// The path is resolved once, at init, to the real file (symlinks followed, the
/// folder's when the file does not exist yet): the lock, the backup, the epoch record
/// and the temporary files all sit beside the real file, so every process locks the
/// same file whichever name it was given, and a symlinked keychain keeps a real
/// previous copy instead of a second link to the live file.
public struct KeychainStore: Sendable {
    public let path: String

    public init(path: String) { self.path = KeychainStore.realPath(path) }

    /// `path` with every symlink resolved; for a file that does not exist yet, its
    /// folder resolved and its name kept. Unchanged when neither resolves.
    static func realPath(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != "..", let real = realpath(folder, nil) else { return path }
        defer { free(real) }
        let resolved = String(cString: real)
        return (resolved == "/" ? "" : resolved) + "/" + name
    }

    /// The previous good copy, replaced only by a file that opened with the master key.
    var backupPath: String { path + ".prev" }

    public var exists: Bool { access(path, F_OK) == 0 }

    var existingBackup: String? { access(backupPath, F_OK) == 0 ? backupPath : nil }

    /// The keychain as it is now, read under a shared lock.
    public func read() throws -> SealedKeychain {
        guard exists else { throw KeychainError.notFound(path: path) }
        let (bytes, record) = try FileLock.withLock(for: path, exclusive: false) { (try readBytes(), epochs.recorded()) }
        return try SealedKeychain(bytes: bytes, path: path, backup: existingBackup, epochRecord: .some(record))
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
            BackupExclusion.markNoDump(fd: file.fd)
            try file.write(bytes)
            try file.commit(exclusive: true)
            try epochs.record(id: header.id, epoch: header.epoch)
        }
    }

    /// Where the epoch of the last save is remembered.
    var epochs: KeychainEpochs { KeychainEpochs(keychainPath: path) }

    /// Creates a keychain with a new master key, wrapped under `passcode` and, with
    /// `recovery`, under the answers to its questions. Fails with `.exists` if there is
    /// one. The folder must exist.
    public func create(passcode: SecretBytes, recovery: (questions: [String], answers: [String])?, workFactor: Int) throws {
        let masterKey = try KeychainFormat.newMasterKey()
        let passcodeSlot = try KeySlot.wrap(masterKey, kind: .passcode, secret: passcode, workFactor: workFactor)
        let recoverySlot = try recovery.map {
            try KeySlot.recovery(masterKey, questions: $0.questions, answers: $0.answers, workFactor: workFactor)
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
        var saved: KeychainHeader?
        return try document.update(mode: 0o600, read: { try currentFile(keychainID: keychainID) }, change: { current in
            var entries = try current.sealed.open(masterKey: masterKey)
            let (result, changed) = try change(&entries)
            guard changed else { return (result, nil) }
            let header = current.sealed.header.next
            saved = header
            return (result, try KeychainFormat.seal(header: header, masterKey: masterKey, entries: entries))
        }, beforeWrite: keepBackupOfCurrent, afterCommit: { try epochs.record(id: saved!.id, epoch: saved!.epoch) })
    }

    /// Replaces the master key of the keychain as it is when the lock is held: the
    /// entries are sealed again under a new key, and `slots` makes the key slots for it
    /// from the current header (its epoch already the next). Returns the new key. The
    /// backup becomes the new file too: the old file still opens with the old passcode
    /// (or answers), so it must not stay as `PATH.prev`.
    @discardableResult
    public func rotate(keychainID: [UInt8], masterKey: SecretBytes,
                       _ slots: (_ header: KeychainHeader, _ newKey: SecretBytes) throws -> KeychainHeader) throws -> SecretBytes {
        var saved: (header: KeychainHeader, key: SecretBytes)?
        try document.update(mode: 0o600, read: { try currentFile(keychainID: keychainID) }, change: { current in
            // Open it all: a damaged body must not be carried into a new file either.
            let entries = try current.sealed.open(masterKey: masterKey)
            let newKey = try KeychainFormat.newMasterKey()
            let header = try slots(current.sealed.header.next, newKey)
            precondition(header.id == keychainID && header.epoch == current.sealed.header.epoch + 1)
            saved = (header, newKey)
            return ((), try KeychainFormat.seal(header: header, masterKey: newKey, entries: entries))
        }, beforeWrite: keepBackupOfCurrent, afterCommit: {
            try epochs.record(id: saved!.header.id, epoch: saved!.header.epoch)
            try keepBackup()
        })
        return saved!.key
    }

    /// Every change goes through it: exclusive lock, re-read, change, atomic write.
    /// Saved with the nodump attribute: kept out of backups, where the file system can.
    private var document: LockedDocumentStore { LockedDocumentStore(path: path, noDump: true) }

    /// The file under the exclusive lock; it must still be the keychain the key is for.
    private func currentFile(keychainID: [UInt8]) throws -> (sealed: SealedKeychain, bytes: [UInt8]) {
        guard exists else { throw KeychainError.notFound(path: path) }
        let bytes = try readBytes()
        let sealed = try SealedKeychain(bytes: bytes, path: path, backup: existingBackup, epochRecord: .some(epochs.recorded()))
        guard sealed.header.id == keychainID else { throw KeychainStoreError.replaced(path: path) }
        return (sealed, bytes)
    }

    /// Keeps the current (verified) file as the backup, before the new one replaces it.
    private func keepBackupOfCurrent() throws {
        removeStaleTemporaries()
        try keepBackup()
    }

    /// Temporary files a killed writer left behind (SIGKILL leaves no chance to clean
    /// up). Safe under the exclusive lock: no other writer is between create and rename.
    private func removeStaleTemporaries() {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let prefixes = [".\(base).tmp-", "\(base).prev.tmp-", ".\(base).prev.tmp-", ".\(base).epoch.tmp-"]
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

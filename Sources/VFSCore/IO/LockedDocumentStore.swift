#if canImport(Glibc)
import Glibc
#endif

/// "Lock, re-read, change, write atomically": the one way the keychain and the policy
/// change their files, so that two changes that race are applied one after the other
/// and neither is lost.
///
/// `update` takes the `PATH.lock` sidecar lock exclusive (`FileLock`), reads the file as
/// it is now, lets the caller change it, and only when the change produced new bytes
/// writes them through `AtomicOutputFile` (temporary file in the same folder, which
/// also removes the ones a killed writer left; fsync; rename; fsync of the folder),
/// then runs the caller's after-commit step (the policy's log, the keychain's epoch)
/// before the lock is released.
struct LockedDocumentStore: Sendable {
    let path: String
    /// The lock file's permission bits when it has to be created.
    let lockMode: mode_t
    /// Every new file gets the nodump attribute (kept out of backups), where the file
    /// system keeps it.
    let noDump: Bool

    init(path: String, lockMode: mode_t = 0o600, noDump: Bool = false) {
        self.path = path
        self.lockMode = lockMode
        self.noDump = noDump
    }

    /// One change under the exclusive lock.
    /// - Parameters:
    ///   - mode: the file's permission bits; nil keeps those of the file being replaced
    ///   - newFileMode: with `mode` nil, the bits of a file that does not exist yet
    ///     (0666 less the umask for a new one).
    ///   - read: the document as it is now (called under the lock).
    ///   - change: its result and the bytes to write, nil when nothing changed (then
    ///     nothing is written and no step below runs).
    ///   - beforeWrite: runs after `change`, before the new file is written (a backup).
    ///   - afterCommit: runs once the new file is in place, still under the lock.
    func update<Document, R>(mode: mode_t?, newFileMode: mode_t? = nil,
                             read: () throws -> Document,
                             change: (Document) throws -> (result: R, bytes: [UInt8]?),
                             beforeWrite: () throws -> Void = {},
                             afterCommit: () throws -> Void = {}) throws -> R {
        let lock = try FileLock(for: path, exclusive: true, mode: lockMode)
        defer { lock.unlock() }
        let (result, bytes) = try change(try read())
        guard let bytes else { return result }
        try beforeWrite()
        var info = stat()
        let keptMode: mode_t? = stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
        let file = try AtomicOutputFile(path: path, mode: mode ?? keptMode ?? newFileMode)
        if noDump { _ = BackupExclusion.markNoDump(fd: file.fd) }
        try file.write(bytes)
        try file.commit()
        try afterCommit()
        return result
    }
}

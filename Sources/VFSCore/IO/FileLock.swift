#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock (flock) on a sidecar file `PATH.lock` beside a data file.
///
/// The lock lives on its own file because every save replaces the data file by
/// rename: a lock held on the old inode would not exclude a writer that opened the
/// new one. Readers take it shared, writers exclusive; it is released by `unlock()`,
/// on deinit, or by the kernel when the process dies (so a killed writer never
/// leaves a stale lock behind).
public final class FileLock {
    public let path: String
    private var fd: Int32

    /// Takes the lock for the data file at `dataPath`, waiting for it unless `wait` is false
    /// (then a lock held elsewhere throws an `IOError` with code EWOULDBLOCK).
    /// - Parameters:
    ///   - mode: the lock file's permission bits when it has to be created.
    ///   - create: false leaves a missing lock file missing (an IOError with ENOENT), for
    ///     a reader that writes nothing.
    public init(for dataPath: String, exclusive: Bool, wait: Bool = true, mode: mode_t = 0o600, create: Bool = true) throws {
        path = dataPath + ".lock"
        fd = open(path, O_RDWR | (create ? O_CREAT : 0) | O_CLOEXEC, mode)
        guard fd >= 0 else { throw IOError("cannot open lock file", path: path) }
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        if retryingEINTR({ flock(fd, operation) }) != 0 {
            let error = IOError(errno == EWOULDBLOCK ? "locked by another process:" : "cannot lock", path: path)
            close(fd)
            fd = -1
            throw error
        }
    }

    /// Runs `body` while holding the lock for `dataPath`.
    public static func withLock<R>(for dataPath: String, exclusive: Bool, _ body: () throws -> R) throws -> R {
        let lock = try FileLock(for: dataPath, exclusive: exclusive)
        defer { lock.unlock() }
        return try body()
    }

    /// Replaces the lock file's content with `text` (who holds it, for the next one to say).
    public func record(_ text: String) {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    public func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}

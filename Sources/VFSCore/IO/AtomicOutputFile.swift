internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An output file that appears only when the whole operation succeeded: data goes to a
/// temporary file in the same folder, which `commit()` fsyncs and renames over the
/// target, then fsyncs the folder. Dropped without `commit()` (or on a signal), the
/// temporary file is removed, so a failed run leaves nothing behind.
///
/// The temporary file is an unnamed O_TMPFILE file where the file system allows it, so
/// even SIGKILL leaves nothing behind: it gets a name only at `commit()` (linked under
/// a temporary name and renamed over the target, or with `exclusive` linked straight
/// to the target). Elsewhere it is a named `.NAME.tmp-XXXXXX`. Either way it is mode
/// 0600 until it is in place, locked (flock) while this process lives, and a later run
/// writing the same target removes the ones a killed run left (its own, unlocked).
public final class AtomicOutputFile: ByteSink {
    public let path: String
    /// The named temporary file, or nil while the file is unnamed (O_TMPFILE).
    private(set) var temporaryPath: String?
    public let fd: Int32
    private let finalMode: mode_t
    private var done = false
    /// Once a long run of writes begins (`prepareForStreaming`).
    private(set) var behind: WriteBehind?
    private var written: Int64 = 0

    /// - Parameters:
    ///   - mode: the final file's permission bits; nil keeps those of the file being
    ///     replaced, or for a new file means 0666 less the umask.
    ///   - exclusive: fail if `path` already exists (and at commit, never replace one).
    /// A path that holds RawName's stand-ins for bytes that are not UTF-8 (a name
    /// vfs-cloud put stored) is written under those bytes.
    public init(path requested: String, mode: mode_t? = nil, exclusive: Bool = false) throws {
        var info = stat()
        if lstat(RawName.cString(requested), &info) == 0 {
            if exclusive { throw IOError("cannot create", path: requested, code: EEXIST) }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                // Write the file the link points to, keeping the link; another user's
                // link in a sticky, world-writable folder is refused (OutputLink).
                path = try OutputLink.resolve(requested)
                if stat(RawName.cString(path), &info) != 0 { info.st_mode = S_IFREG }
            } else {
                path = requested
            }
            // Renaming over a device or FIFO would replace it with a regular file.
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw IOError("cannot replace", path: requested, code: (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL)
            }
        } else {
            path = requested
        }
        // A file being replaced keeps its permission bits (a 0600 file must not become
        // 0644 because its new content was written elsewhere first).
        var existing = stat()
        let existingMode: mode_t? = stat(RawName.cString(path), &existing) == 0 ? existing.st_mode & 0o777 : nil
        finalMode = mode ?? existingMode ?? (0o666 & ~AtomicOutputFile.currentUmask())
        let folder = AtomicOutputFile.folder(of: path)
        let prefix = Self.temporaryPrefix(of: path)
        Self.removeStale(in: folder, prefix: prefix)
        var fd = vfs_open_tmpfile(RawName.cString(folder), 0o600)
        if fd < 0 {
            guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(errno) else { throw IOError("cannot create", path: path) }
            var template = RawName.cString("\(folder)/\(prefix)XXXXXX")
            fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // mode 0600
            guard fd >= 0 else { throw IOError("cannot create", path: path) }
            let named = FileName.text(template.dropLast().map { UInt8(bitPattern: $0) })
            temporaryPath = named
            SignalCleanup.removeOnSignal(named)
        }
        self.fd = fd
        // Held until the process ends: a later run's sweep sees this writer is alive.
        _ = flock(fd, LOCK_EX | LOCK_NB)
    }

    deinit { if !done { abandon() } }

    public var name: String { path }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try writeAll(fd: fd, bytes) } catch { throw IOError("cannot write", path: path, code: error.code) }
        written += Int64(bytes.count)
        behind?.advance(to: written)
    }

    /// A long run of writes (an age payload) follows: it is written behind (`WriteBehind`,
    /// as extraction writes its files), so `commit`'s fsync finds most of it on disk
    /// already and the file recycles a few windows of page cache instead of taking fresh
    /// pages for all of it.
    public func prepareForStreaming() {
        if behind == nil { behind = WriteBehind(fd: fd, start: written) }
    }

    /// Empties the pending file to write it again from the start (nothing is at `path`
    /// yet).
    public func rewind() throws {
        precondition(!done)
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw IOError("cannot rewrite", path: path) }
        written = 0
        if behind != nil { behind = WriteBehind(fd: fd) }
    }

    /// Makes the file appear at `path` with everything written so far.
    public func commit(exclusive: Bool = false) throws {
        precondition(!done)
        guard fsync(fd) == 0 else { throw IOError("cannot sync", path: path) }
        if exclusive {
            // The final mode first: the file appears under its own name at once. link(2)
            // fails if the target exists, so a file that appeared meanwhile is kept.
            guard fchmod(fd, finalMode) == 0 else { throw IOError("cannot set mode of", path: path) }
            if let named = temporaryPath {
                guard link(RawName.cString(named), RawName.cString(path)) == 0 else { throw IOError("cannot create", path: path) }
                unlink(RawName.cString(named))
            } else {
                guard vfs_link_tmpfile(fd, RawName.cString(path)) == 0 else { throw IOError("cannot create", path: path) }
            }
        } else {
            let named = try temporaryPath ?? linkUnderTemporaryName()
            guard rename(RawName.cString(named), RawName.cString(path)) == 0 else { throw IOError("cannot rename into place", path: path) }
            // 0600 until it was in place.
            guard fchmod(fd, finalMode) == 0 else {
                done = true
                close(fd)
                throw IOError("cannot set mode of", path: path)
            }
        }
        done = true
        close(fd)
        if let named = temporaryPath { SignalCleanup.forget(named) }
        AtomicOutputFile.syncFolder(AtomicOutputFile.folder(of: path))
    }

    /// Gives the unnamed file a temporary name beside the target, for the rename.
    private func linkUnderTemporaryName() throws -> String {
        let folder = AtomicOutputFile.folder(of: path), prefix = Self.temporaryPrefix(of: path)
        for _ in 0..<64 {
            let named = folder + "/" + prefix + (try SecureRandom.bytes(6)).hexString
            if vfs_link_tmpfile(fd, RawName.cString(named)) == 0 {
                temporaryPath = named
                SignalCleanup.removeOnSignal(named)
                return named
            }
            guard errno == EEXIST else { throw IOError("cannot create", path: path) }
        }
        throw IOError("cannot create", path: path, code: EEXIST)
    }

    /// Removes the temporary file; nothing appears at `path`.
    public func abandon() {
        guard !done else { return }
        done = true
        close(fd)
        if let named = temporaryPath {
            unlink(RawName.cString(named))
            SignalCleanup.forget(named)
        }
    }

    /// `.NAME.tmp-`: the start of the temporary names for `path`.
    static func temporaryPrefix(of path: String) -> String {
        ".\(path.split(separator: "/").last.map(String.init) ?? path).tmp-"
    }

    /// Removes the named temporary files for one target that a killed run left in
    /// `folder`: this user's regular files whose writer no longer holds their lock.
    static func removeStale(in folder: String, prefix: String) {
        let folderFD = open(RawName.cString(folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { return }
        defer { close(folderFD) }
        guard let names = try? Shredder.list(folderFD) else { return }
        let start = RawName.bytes(prefix).map { CChar(bitPattern: $0) }
        for name in names where name.bytes.starts(with: start) {
            let fd = openat(folderFD, name.bytes, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var opened = stat(), now = stat()
            guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_uid == geteuid(),
                  flock(fd, LOCK_EX | LOCK_NB) == 0,
                  fstatat(folderFD, name.bytes, &now, AT_SYMLINK_NOFOLLOW) == 0,
                  now.st_dev == opened.st_dev, now.st_ino == opened.st_ino else { continue }
            unlinkat(folderFD, name.bytes, 0)
        }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// fsync on a folder makes a rename in it durable.
    static func syncFolder(_ folder: String) {
        let fd = open(RawName.cString(folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    package static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// Writes `bytes` to `path` atomically in one go.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t? = nil) throws {
        let file = try AtomicOutputFile(path: path, mode: mode)
        try file.write(bytes)
        try file.commit()
    }
}

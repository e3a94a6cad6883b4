#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that appears only when the whole operation succeeded: data goes to a
/// temporary file in the same folder, which `commit()` fsyncs and renames over the
/// target, then fsyncs the folder. Dropped without `commit()` (or on a signal), the
/// temporary file is removed, so a failed run leaves nothing behind.
public final class AtomicOutputFile: ByteSink {
    public let path: String
    public let temporaryPath: String
    public let fd: Int32
    private var done = false

    /// - Parameters:
    ///   - mode: the final file's permission bits; nil keeps those of the file being
    ///     replaced, or for a new file means 0666 less the umask.
    ///   - exclusive: fail if `path` already exists (and at commit, never replace one).
    public init(path requested: String, mode: mode_t? = nil, exclusive: Bool = false) throws {
        var info = stat()
        if lstat(requested, &info) == 0 {
            if exclusive { throw IOError("cannot create", path: requested, code: EEXIST) }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                // Write the file the link points to, keeping the link.
                path = AtomicOutputFile.linkTarget(requested)
                if stat(path, &info) != 0 { info.st_mode = S_IFREG }
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
        let existingMode: mode_t? = stat(path, &existing) == 0 ? existing.st_mode & 0o777 : nil
        let folder = AtomicOutputFile.folder(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(folder)/.\(base).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw IOError("cannot create", path: path) }
        self.fd = fd
        temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        TemporaryFiles.register(temporaryPath)
        let finalMode = mode ?? existingMode ?? (0o666 & ~AtomicOutputFile.currentUmask())
        if fchmod(fd, finalMode) != 0 {
            let error = IOError("cannot set mode of", path: path)
            abandon()
            throw error
        }
    }

    deinit { if !done { abandon() } }

    public var name: String { path }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(fd, bytes, name: path)
    }

    /// Makes the file appear at `path` with everything written so far.
    public func commit(exclusive: Bool = false) throws {
        precondition(!done)
        guard fsync(fd) == 0 else { throw IOError("cannot sync", path: path) }
        if exclusive {
            // link(2) fails if the target exists, so a file that appeared meanwhile is kept.
            guard link(temporaryPath, path) == 0 else { throw IOError("cannot create", path: path) }
            unlink(temporaryPath)
        } else {
            guard rename(temporaryPath, path) == 0 else { throw IOError("cannot rename into place", path: path) }
        }
        done = true
        close(fd)
        TemporaryFiles.unregister(temporaryPath)
        AtomicOutputFile.syncFolder(AtomicOutputFile.folder(of: path))
    }

    /// Removes the temporary file; nothing appears at `path`.
    public func abandon() {
        guard !done else { return }
        done = true
        close(fd)
        unlink(temporaryPath)
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Where a symbolic link points, resolved against the link's folder.
    static func linkTarget(_ link: String) -> String {
        if let resolved = realpath(link, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(link, &buffer, buffer.count - 1)
        guard n > 0 else { return link }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : folder(of: link) + "/" + target
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// fsync on a folder makes a rename in it durable.
    public static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func currentUmask() -> mode_t {
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

/// Temporary files to remove if the process is interrupted (SIGINT, SIGTERM, SIGHUP,
/// SIGPIPE), so an interrupted run leaves no partial output either.
public enum TemporaryFiles {
    // Paths as C strings kept in a fixed table that the signal handler can walk
    // without allocating (unlink is async-signal-safe).
    nonisolated(unsafe) private static var table = [UnsafeMutablePointer<CChar>?](repeating: nil, count: 64)
    private static let lock = PThreadMutex()
    nonisolated(unsafe) private static var installed = false

    static func register(_ path: String) {
        lock.withLock {
            installHandlersOnce()
            if let slot = table.firstIndex(where: { $0 == nil }) { table[slot] = strdup(path) }
        }
    }

    static func unregister(_ path: String) {
        lock.withLock {
            for i in table.indices where table[i] != nil && String(cString: table[i]!) == path {
                let p = table[i]
                table[i] = nil
                free(p)
            }
        }
    }

    private static func installHandlersOnce() {
        guard !installed else { return }
        installed = true
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] {
            // A signal the process was started with ignored (nohup, a parent that ignores
            // SIGPIPE) stays ignored: it cannot interrupt us, so nothing needs cleaning up.
            var current = sigaction()
            sigaction(sig, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                TemporaryFiles.removeAllFromSignalHandler()
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }

    private static func removeAllFromSignalHandler() {
        for entry in table { if let entry { unlink(entry) } }
    }
}

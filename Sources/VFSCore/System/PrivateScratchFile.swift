#if canImport(Glibc)
import Glibc
#endif

/// Where a plaintext secret may lie while another program (an editor) works on it: a
/// file of mode 0600 in a new folder of mode 0700, on a memory file system (tmpfs or
/// ramfs), so it never reaches a disk and leaves nothing to shred, as pass edit does.
/// `destroy()` overwrites the file and removes it and its folder; a terminating signal
/// removes both too (SignalCleanup).
public final class PrivateScratchFile {
    public let folder: String
    public let path: String
    private var destroyed = false

    /// Why no scratch file could be made.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// None of the folders tried is on a memory file system.
        case noMemoryFileSystem(tried: [String])
        public var description: String {
            switch self {
            case .noMemoryFileSystem(let tried):
                return "no memory file system (tmpfs) to hold the secret while it is edited: "
                    + tried.map { "\"\($0)\"" }.joined(separator: ", ") + " " + (tried.count == 1 ? "is not one" : "are not")
            }
        }
    }

    /// True if `path` is a folder on tmpfs or ramfs that this user may write in.
    static func isMemoryFolder(_ path: String) -> Bool {
        guard access(path, W_OK | X_OK) == 0 else { return false }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let magic = FileSystemKind.of(fd: fd)?.magic else { return false }
        return magic == FileSystemKind.tmpfsMagic || magic == FileSystemKind.ramfsMagic
    }

    /// $XDG_RUNTIME_DIR (private to this user) when it is on a memory file system, else
    /// `shm` (/dev/shm); `.noMemoryFileSystem` when neither is.
    public static func memoryFolder(environment: [String: String], shm: String = "/dev/shm") throws -> String {
        var tried: [String] = []
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            if isMemoryFolder(runtime) { return runtime }
            tried.append(runtime)
        }
        if isMemoryFolder(shm) { return shm }
        throw Failure.noMemoryFileSystem(tried: tried + [shm])
    }

    /// A new folder `vfs-edit.XXXXXX` in `parent` holding the file `name` with `bytes`.
    public init(holding bytes: [UInt8], name: String, in parent: String) throws {
        var template = Array((parent + "/vfs-edit.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw IOError("cannot create a private folder in", path: parent) }
        folder = String(cString: made)
        path = folder + "/" + name
        SignalCleanup.removeOnSignal(folder)
        SignalCleanup.removeOnSignal(path)
        do {
            let fd = retryingEINTR { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
            guard fd >= 0 else { throw IOError("cannot create", path: path) }
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw IOError("cannot set the mode of", path: path) }
            do { try writeAll(fd: fd, bytes) } catch { throw IOError("cannot write", path: path, code: error.code) }
        } catch {
            destroy()
            throw error
        }
    }

    deinit { destroy() }

    /// What the file holds now (the editor may have replaced it by a new file).
    public func read() throws -> [UInt8] {
        try FileDescriptorSource(path: path).readAll()
    }

    /// Overwrites the file with zeros, then removes it and its folder. Idempotent.
    public func destroy() {
        guard !destroyed else { return }
        destroyed = true
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_size > 0 {
                let zeros = [UInt8](repeating: 0, count: Int(info.st_size))
                do { try writeAll(fd: fd, zeros) } catch {}
                fsync(fd)
            }
            close(fd)
        }
        // The editor may have left a backup or swap file beside it: the folder is ours alone.
        if let dir = opendir(folder) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(folder + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(folder)
        SignalCleanup.forget(path)
        SignalCleanup.forget(folder)
    }
}

import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// The private folder inside the target where an extraction writes its entries before
/// they move into place: created mode 0700 relative to the target's descriptor, named
/// `.vfs-unwrap-PID-RANDOM`, locked (flock) for as long as the extracting process lives,
/// and removed relative to descriptors, never by path.
final class StagingFolder {
    static let prefix = ".vfs-unwrap-"
    let name: String
    let handle: FolderHandle
    private let parent: FolderHandle

    /// - Parameter shown: the target's path, for messages.
    init(in parent: FolderHandle, shown: String) throws {
        self.parent = parent
        for _ in 0..<64 {
            let name = Self.prefix + "\(getpid())-" + (try SecureRandom.bytes(6)).hexString
            guard mkdirat(parent.fd, name, 0o700) == 0 else {
                if errno == EEXIST { continue }
                throw BundleError.cannotExtract(IOError("cannot create a staging folder in", path: shown).description)
            }
            let handle = try parent.folder(name, shown: shown + "/" + name)
            // Ours and private: a folder someone swapped in after mkdirat would be theirs.
            var info = stat()
            guard fstat(handle.fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
                throw BundleError.changedDuringExtraction(path: shown + "/" + name)
            }
            _ = flock(handle.fd, LOCK_EX | LOCK_NB)
            self.name = name
            self.handle = handle
            return
        }
        throw BundleError.cannotExtract(IOError("cannot create a staging folder in", path: shown, code: EEXIST).description)
    }

    /// Removes the staging folders that killed extractions (SIGKILL, a crash, a power
    /// cut) left in `parent`: this user's, named `.vfs-unwrap-PID-…`, whose process is
    /// gone and whose lock nobody holds. A running extraction's folder is left alone.
    /// - Returns: how many were removed.
    @discardableResult
    static func removeStale(in parent: FolderHandle) -> Int {
        guard let names = try? Shredder.list(parent.fd) else { return 0 }
        var removed = 0
        for name in names {
            let text = name.description
            guard text.hasPrefix(prefix), let pid = Int32(text.dropFirst(prefix.count).prefix { $0 != "-" }) else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }  // that process still runs
            let fd = openat(parent.fd, name.bytes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat(), now = stat()
            guard fstat(fd, &info) == 0, info.st_uid == geteuid(), flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            empty(fd)
            if fstatat(parent.fd, name.bytes, &now, AT_SYMLINK_NOFOLLOW) == 0, FileIdentity(now) == FileIdentity(info),
               unlinkat(parent.fd, name.bytes, AT_REMOVEDIR) == 0 {
                removed += 1
            }
        }
        return removed
    }

    /// Removes everything staged and the folder itself (if the name in the target is
    /// still this folder).
    func remove() {
        Self.empty(handle.fd)
        var info = stat()
        if fstatat(parent.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, FileIdentity(info) == handle.identity {
            unlinkat(parent.fd, name, AT_REMOVEDIR)
        }
    }

    /// Removes what an open folder holds, depth first, without following links
    /// (folders made read-only by their manifest mode are made writable first).
    static func empty(_ fd: Int32) {
        guard let names = try? Shredder.list(fd) else { return }
        for name in names {
            var info = stat()
            guard fstatat(fd, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                // A folder whose manifest mode shuts its owner out is made ours again
                // first (only this process writes inside a staging folder, mode 0700).
                if info.st_mode & 0o700 != 0o700 { fchmodat(fd, name.bytes, 0o700, 0) }
                let child = openat(fd, name.bytes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 {
                    empty(child)
                    close(child)
                }
                unlinkat(fd, name.bytes, AT_REMOVEDIR)
            } else {
                unlinkat(fd, name.bytes, 0)
            }
        }
    }

    /// Removes a tree by path (tests' scratch folders; extraction removes by descriptor).
    static func remove(_ path: String) {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return }
        let folder = slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
        let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        let parent = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        defer { close(parent) }
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            fchmodat(parent, name, 0o700, 0)
            let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 {
                empty(fd)
                close(fd)
            }
            unlinkat(parent, name, AT_REMOVEDIR)
        } else {
            unlinkat(parent, name, 0)
        }
    }
}

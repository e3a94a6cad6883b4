import VFSCore
internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An open folder (a directory descriptor), closed when the last reference goes.
/// Extraction works relative to these, never by path: a name that another user swaps
/// for a link after it was looked at is not followed, and a folder swapped for another
/// one is caught by its device and inode.
final class FolderHandle {
    let fd: Int32
    let identity: FileIdentity

    private init(fd: Int32, identity: FileIdentity) {
        self.fd = fd
        self.identity = identity
    }

    deinit { close(fd) }

    /// Opens the folder the caller named (the one path that is resolved as given).
    static func open(_ path: String) throws(IOError) -> FolderHandle {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError("cannot open folder", path: path) }
        return try adopt(fd, path: path)
    }

    /// Opens the folder `name` (RawName) inside this one: only a folder, never through a link.
    /// - Parameter shown: the path for messages.
    func folder(_ name: String, shown: String) throws(IOError) -> FolderHandle {
        let fd = openat(self.fd, RawName.cString(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw IOError("cannot open folder", path: shown) }
        return try Self.adopt(fd, path: shown)
    }

    /// What lstat says of `name` in this folder; nil when nothing is there.
    func entry(_ name: String, shown: String) throws(IOError) -> stat? {
        var info = stat()
        guard fstatat(fd, RawName.cString(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw IOError("cannot check", path: shown)
        }
        return info
    }

    private static func adopt(_ fd: Int32, path: String) throws(IOError) -> FolderHandle {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = IOError("cannot check", path: path)
            close(fd)
            throw error
        }
        return FolderHandle(fd: fd, identity: FileIdentity(info))
    }
}

/// A file's device and inode: what stays the same while its names change.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// The open folders along one path below a root, reused from one entry to the next
/// (entries of one folder come together), so only as many descriptors are open as the
/// path is deep.
struct FolderChain {
    let root: FolderHandle
    /// For messages: the root's path as the user gave it.
    let rootPath: String
    /// Checked at every step when given: the folder each path must still be.
    let expected: [String: FileIdentity]?
    private var paths: [String] = []
    private var handles: [FolderHandle] = []

    init(root: FolderHandle, rootPath: String, expected: [String: FileIdentity]? = nil) {
        self.root = root
        self.rootPath = rootPath
        self.expected = expected
    }

    /// The open folder at `path` (relative, `/`-separated; nil for the root).
    mutating func handle(for path: String?) throws -> FolderHandle {
        guard let path else { return root }
        let parts = path.split(separator: "/").map(String.init)
        var keep = 0
        var prefix = ""
        while keep < min(parts.count, paths.count) {
            let next = keep == 0 ? parts[0] : prefix + "/" + parts[keep]
            guard paths[keep] == next else { break }
            prefix = next
            keep += 1
        }
        paths.removeSubrange(keep...)
        handles.removeSubrange(keep...)
        var current = handles.last ?? root
        for i in keep..<parts.count {
            prefix = i == 0 ? parts[0] : prefix + "/" + parts[i]
            let shown = rootPath + "/" + prefix
            let result = Result { () throws(IOError) -> FolderHandle in try current.folder(parts[i], shown: shown) }
            if case .failure(let error) = result, expected != nil, [ELOOP, ENOTDIR, ENOENT].contains(error.code) {
                throw BundleError.changedDuringExtraction(path: shown)
            }
            let opened = try result.get()
            if let expected, expected[prefix] != opened.identity {
                throw BundleError.changedDuringExtraction(path: shown)
            }
            paths.append(prefix)
            handles.append(opened)
            current = opened
        }
        return current
    }
}

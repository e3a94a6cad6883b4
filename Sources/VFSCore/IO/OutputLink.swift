#if canImport(Glibc)
import Glibc
#endif

/// `-o FILE` where FILE is a symbolic link: the file it points to is replaced and the
/// link kept. Because the link is resolved here rather than by the kernel's `open`,
/// the kernel's protected-symlinks rule (fs.protected_symlinks) is applied here too,
/// to every link in the chain: in a sticky, world-writable folder such as /tmp, a link
/// is followed only if it belongs to the user who follows it or to the folder's owner.
/// Otherwise another user could plant a link there and have the output written over
/// a file they could never write themselves.
package enum OutputLink {
    /// The path the output goes to: `requested`, or the end of its chain of links.
    package static func resolve(_ requested: String) throws -> String {
        var current = requested
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            try checkFollowable(current, owner: info.st_uid)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { throw IOError("cannot read the link", path: current) }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : AtomicOutputFile.folder(of: current) + "/" + target
        }
        throw IOError("cannot resolve", path: requested, code: ELOOP)
    }

    /// Throws if the kernel would refuse to follow the link at `path` (owned by `owner`)
    /// for this process.
    static func checkFollowable(_ path: String, owner: uid_t) throws {
        let folder = AtomicOutputFile.folder(of: path)
        var info = stat()
        guard stat(folder, &info) == 0 else { throw IOError("cannot check", path: folder) }
        let stickyAndWorldWritable = info.st_mode & S_ISVTX != 0 && info.st_mode & S_IWOTH != 0
        if stickyAndWorldWritable && owner != geteuid() && owner != info.st_uid {
            throw UnsafeOutputLink(path: path, owner: owner)
        }
    }
}

/// An output link that another user planted in a sticky, world-writable folder.
public struct UnsafeOutputLink: Error, CustomStringConvertible, Equatable {
    public let path: String
    /// The link's owner (uid).
    public let owner: uid_t

    public var description: String {
        "refusing to write through \"\(path)\": a link owned by another user (uid \(owner)) in a sticky, world-writable folder"
    }
}

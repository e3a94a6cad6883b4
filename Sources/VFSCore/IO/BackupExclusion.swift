internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Keeping plaintext out of backups, Linux's counterparts of iOS's
/// `isExcludedFromBackupKey`:
/// - the nodump inode flag (`FS_NODUMP_FL`, `chattr +d`), honoured by dump(8) and by
///   `borg create --exclude-nodump`; ext4, XFS, btrfs and (since Linux 6.0) tmpfs keep
///   it, and ext4 and tmpfs give it to what is created later in a marked folder;
/// - a `CACHEDIR.TAG` file in a folder (https://bford.info/cachedir/), honoured by
///   `tar --exclude-caches`, `borg create --exclude-caches` and
///   `restic backup --exclude-caches`.
public enum BackupExclusion {
    /// The tag file's name and its first line, as the cache directory tagging spec fixes them.
    static let tagName = "CACHEDIR.TAG"
    public static let tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
    static let tagText = tagSignature + """

        # This file is a cache directory tag created by vfs: what this folder holds is
        # decrypted or secret and is not to be backed up.
        # For information about cache directory tags, see https://bford.info/cachedir/

        """

    /// Sets the nodump flag on an open file or folder. False when the file system
    /// keeps no such flag (ramfs, vfat, NFS, most FUSE file systems) or refuses it.
    @discardableResult
    public static func markNoDump(fd: Int32) -> Bool { vfs_set_nodump(fd) == 0 }

    /// Sets the nodump flag on `path` (a link is not followed). False as for `markNoDump(fd:)`,
    /// or when `path` can't be opened.
    @discardableResult
    public static func markNoDump(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return markNoDump(fd: fd)
    }

    /// Whether the nodump flag is set (lsattr's `d`); nil when the file system has no
    /// inode flags to read.
    public static func hasNoDump(fd: Int32) -> Bool? {
        var flags: Int32 = 0
        guard vfs_get_inode_flags(fd, &flags) == 0 else { return nil }
        return flags & vfs_nodump_flag() != 0
    }

    public static func hasNoDump(path: String) -> Bool? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return hasNoDump(fd: fd)
    }

    /// Puts a `CACHEDIR.TAG` in the folder `folderFD` unless one is there (a file
    /// of that name is never replaced, even one without the signature). False if it
    /// could not be written.
    @discardableResult
    public static func tag(folderFD: Int32) -> Bool {
        let fd = openat(folderFD, tagName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return errno == EEXIST }
        defer { close(fd) }
        let bytes = Array(tagText.utf8)
        guard (try? writeAll(fd: fd, bytes)) != nil else {
            unlinkat(folderFD, tagName, 0)
            return false
        }
        return true
    }

    /// What marking a folder did.
    public struct FolderMark: Sendable, Equatable {
        /// The nodump flag is set on the folder.
        public var noDump: Bool
        /// A CACHEDIR.TAG is in it.
        public var tagged: Bool
    }

    /// Marks the folder at `path` both ways: nodump on the folder and a CACHEDIR.TAG
    /// in it. Nothing is thrown: a folder that can't be marked is still usable.
    @discardableResult
    public static func markFolder(_ path: String) -> FolderMark {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return FolderMark(noDump: false, tagged: false) }
        defer { close(fd) }
        return FolderMark(noDump: markNoDump(fd: fd), tagged: tag(folderFD: fd))
    }
}

/// How an extraction with `--no-backup` kept its output out of backups.
public struct BackupMarks: Sendable, Equatable {
    /// Files and folders given the nodump flag, and those whose file system refused it.
    public var noDump = 0
    public var noDumpRefused = 0
    /// Folders the bundle created (not merged into) that got a CACHEDIR.TAG.
    public var tagged = 0

    public init() {}
}

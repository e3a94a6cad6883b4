internal import CLinux
import Glibc

/// The file system a file lives on, as far as overwriting it in place is concerned.
///
/// Overwriting a file's blocks destroys its old content only where the file system
/// writes new data over the old blocks. Copy-on-write and log-structured file systems
/// (Btrfs, ZFS, F2FS, NILFS), XFS with reflinks, overlay and union mounts, network
/// file systems and RAM-backed ones (tmpfs pages may sit in swap) do not promise that.
public struct FileSystemKind: Sendable, Equatable {
    /// fstatfs's f_type.
    public let magic: UInt
    /// A short name ("ext4", "btrfs"), or the magic number in hex when unknown.
    public let name: String
    /// Why an in-place overwrite may leave old data behind; nil where it is in place.
    public let caveat: String?

    /// A kernel interface dressed as files (sysfs, proc, devtmpfs, cgroup…): its "files"
    /// are not stored data, and writing random bytes into them changes the running
    /// system. Never shredded.
    public let pseudo: Bool

    public var overwritesInPlace: Bool { caveat == nil }

    /// The file system of an open file or folder. devtmpfs reports tmpfs's magic number,
    /// so for a RAM-backed one the mount table names it.
    public static func of(fd: Int32) -> FileSystemKind? {
        var type: UInt = 0
        guard vfs_fstatfs_type(fd, &type) == 0 else { return nil }
        if type == Self.tmpfsMagic || type == Self.ramfsMagic,
           let mount = MountIdentity.of(fd: fd)?.mount, MountIdentity.typeName(ofMount: mount) == "devtmpfs" {
            return FileSystemKind(magic: type, name: "devtmpfs", caveat: nil, pseudo: true)
        }
        return FileSystemKind(magic: type)
    }

    /// The file system of the entry `name` in an open folder, without following a link.
    static func of(_ name: [CChar], in folder: Int32) -> FileSystemKind? {
        let handle = vfs_open_path_nofollow(folder, name)
        guard handle >= 0 else { return nil }
        defer { close(handle) }
        return of(fd: handle)
    }

    public init(magic: UInt) {
        self.magic = magic
        if let pseudoName = Self.pseudoKinds[magic] {
            name = pseudoName
            caveat = nil
            pseudo = true
        } else if let known = Self.known[magic] {
            name = known.name
            caveat = known.caveat
            pseudo = false
        } else {
            name = "0x" + String(magic, radix: 16)
            caveat = nil
            pseudo = false
        }
    }

    private init(magic: UInt, name: String, caveat: String?, pseudo: Bool) {
        self.magic = magic
        self.name = name
        self.caveat = caveat
        self.pseudo = pseudo
    }

    static let tmpfsMagic: UInt = 0x01021994
    static let ramfsMagic: UInt = 0x858458F6

    /// linux/magic.h's numbers of the pseudo file systems.
    private static let pseudoKinds: [UInt: String] = [
        0x62656572: "sysfs",
        0x9FA0: "proc",
        0x27E0EB: "cgroup",
        0x63677270: "cgroup2",
        0x64626720: "debugfs",
        0x74726163: "tracefs",
        0x73636673: "securityfs",
        0x6165676C: "pstore",
        0xDE5E81E4: "efivarfs",
        0xCAFE4A11: "bpf",
        0x62656570: "configfs",
        0x1CD1: "devpts",
        0x19800202: "mqueue",
        0x42494E4D: "binfmt_misc",
        0x65735543: "fusectl",
        0xF97CFF8C: "selinuxfs",
        0x43415D53: "smackfs",
        0x6E736673: "nsfs",
        0x0187: "autofs",
        0x67596969: "rpc_pipefs",
    ]

    private static let copyOnWrite = "copy-on-write: new data goes to new blocks, old blocks (and snapshots) keep the old content"
    private static let known: [UInt: (name: String, caveat: String?)] = [
        0xEF53: ("ext4", nil),  // ext2/3/4 share the magic
        0x4D44: ("vfat", nil),
        0x2011BAB0: ("exfat", nil),
        0x5346544E: ("ntfs", nil),
        0x9123683E: ("btrfs", copyOnWrite),
        0x2FC12FC1: ("zfs", copyOnWrite),
        0xCA451A4E: ("bcachefs", copyOnWrite),
        0xF2F52010: ("f2fs", "log-structured: new data goes to new blocks"),
        0x3434: ("nilfs2", "log-structured: new data goes to new blocks"),
        0x58465342: ("xfs", "reflinks: blocks shared with copies are not overwritten in place"),
        0x794C7630: ("overlayfs", "overlay: the lower layer keeps the original file"),
        0x01021994: ("tmpfs", "in memory: pages may have been swapped out and copies may sit in swap"),
        0x858458F6: ("ramfs", "in memory: copies of the pages may remain in free memory"),
        0x6969: ("nfs", "network file system: the server decides where data is written"),
        0xFF534D42: ("cifs", "network file system: the server decides where data is written"),
        0xFE534D42: ("smb2", "network file system: the server decides where data is written"),
        0x65735546: ("fuse", "FUSE: the file system process decides where data is written"),
        0x73717368: ("squashfs", "read-only compressed file system"),
    ]
}

internal import CLinux

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

    public var overwritesInPlace: Bool { caveat == nil }

    /// The file system of an open file or folder.
    public static func of(fd: Int32) -> FileSystemKind? {
        var type: UInt = 0
        guard vfs_fstatfs_type(fd, &type) == 0 else { return nil }
        return FileSystemKind(magic: type)
    }

    public init(magic: UInt) {
        self.magic = magic
        if let known = Self.known[magic] {
            name = known.name
            caveat = known.caveat
        } else {
            name = "0x" + String(magic, radix: 16)
            caveat = nil
        }
    }

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
        0x9FA0: ("proc", "not a disk file system"),
    ]
}

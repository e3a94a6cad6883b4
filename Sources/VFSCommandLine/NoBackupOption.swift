import ArgumentParser
import VFSCore

/// `--no-backup`, shared by the tools that write plaintext (vfs-decrypt -o, vfs-unwrap,
/// vfs-fetch): what they write is marked to be left out of backups.
public struct NoBackupOption: ParsableArguments {
    @Flag(name: .customLong("no-backup"),
          help: "Mark what is written to be left out of backups (nodump; CACHEDIR.TAG in new folders).")
    public var noBackup = false

    public init() {}

    /// For each tool's --help.
    public static let note = "--no-backup sets the nodump attribute (chattr +d; honoured by dump and by borg's exclude-nodump option) on each file and folder written, where the file system keeps it (ext4, XFS, btrfs, tmpfs since Linux 6.0; not ramfs, vfat, NFS), and puts a CACHEDIR.TAG (honoured by the exclude-caches options of tar, borg and restic) in each folder it creates. Where the file system has no nodump attribute, the output is written all the same and a warning says it is not marked."

    /// Marks the output file of `-o` (nothing for stdout); warns when its file system
    /// keeps no nodump attribute.
    public func mark(_ output: ToolIO.Output) {
        guard noBackup, let fd = output.fileDescriptor, let path = output.path else { return }
        if !BackupExclusion.markNoDump(fd: fd) {
            Diagnostics.warn("\"\(path)\" is not marked nodump: its file system keeps no such attribute (ramfs, vfat, NFS…); leave it out of backups by its path")
        }
    }

    /// Says what an extraction could not mark.
    public func report(_ marks: BackupMarks, folder: String) {
        guard noBackup, marks.noDumpRefused > 0 else { return }
        let tagged = marks.tagged == 0 ? "" : marks.tagged == 1 ? "; the folder it created has a CACHEDIR.TAG"
            : "; the \(marks.tagged) folders it created have a CACHEDIR.TAG"
        Diagnostics.warn("\(marks.noDumpRefused) of the entries written in \"\(folder)\" are not marked nodump: the file system keeps no such attribute\(tagged)")
    }
}

internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Which mount an entry belongs to: its device and the kernel's mount id. Two bind
/// mounts of one file system share the device but not the mount id, so a walk that
/// must stay where it started compares both.
struct MountIdentity: Equatable, Sendable {
    let device: UInt64
    /// statx's STATX_MNT_ID; nil on kernels before 5.8, where only the device is known.
    let mount: UInt64?

    /// The same mount. Without mount ids only the devices are compared.
    func sameMount(as other: MountIdentity) -> Bool {
        guard device == other.device else { return false }
        guard let mount, let otherMount = other.mount else { return true }
        return mount == otherMount
    }

    /// The mount of an open file or folder.
    static func of(fd: Int32) -> MountIdentity? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var id: UInt64 = 0
        let mount = vfs_mount_id(fd, "", &id) == 0 ? id : nil
        return MountIdentity(device: UInt64(info.st_dev), mount: mount)
    }

    /// The mount of the entry `name` in an open folder, without following a link or
    /// triggering an automount; `info` is what lstat said of it.
    static func of(_ name: [CChar], in folder: Int32, info: stat) -> MountIdentity {
        var id: UInt64 = 0
        let found = vfs_mount_id(folder, name, &id) == 0
        return MountIdentity(device: UInt64(info.st_dev), mount: found ? id : nil)
    }

    /// The file system type the kernel names for a mount id ("devtmpfs", "tmpfs"), from
    /// /proc/self/mountinfo; nil when it can't be read.
    static func typeName(ofMount id: UInt64) -> String? {
        guard let file = fopen("/proc/self/mountinfo", "re") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            // "36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw": the mount id
            // first, the type after the " - " separator.
            let text = String(cString: line)
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first, UInt64(first) == id,
                  let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            return String(fields[dash + 1])
        }
        return nil
    }
}

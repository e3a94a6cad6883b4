#if canImport(Glibc)
import Glibc
#endif

/// Hard links whose every name is in the run. A file with other names is refused
/// without --force, because the data stays reachable under a name the run does not
/// touch; when all of its names are in the run (`keychain` and `keychain.prev` after a
/// passcode change, both named or both in a tree under -r), nothing stays reachable,
/// so the set is destroyed. A look over the run's names and trees (nothing followed,
/// nothing opened but folders) counts the selected names of each multiply-linked
/// file before anything is touched.
struct HardLinkCensus {
    struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private var names: [FileID: Int] = [:]
    private var linkCounts: [FileID: Int] = [:]
    private var seen = Set<[UInt8]>()
    private var folders = Set<FileID>()

    /// The files among `paths` (and, with `recursive`, in their trees) all of whose
    /// names are in the run, with their link counts then.
    static func completeSets(_ paths: [[UInt8]], options: ShredOptions) -> [FileID: Int] {
        var census = HardLinkCensus()
        for path in paths {
            guard let (folder, name, _) = Shredder.split(path) else { continue }
            let fd = open(folder.bytes, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            census.visit(name, in: fd, options: options)
            close(fd)
        }
        return census.linkCounts.filter { census.names[$0.key] == $0.value }
    }

    private mutating func visit(_ name: FileName, in folder: Int32, options: ShredOptions) {
        var info = stat(), folderInfo = stat()
        guard fstatat(folder, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0, fstat(folder, &folderInfo) == 0 else { return }
        // One count per name, however often it is named.
        let key = withUnsafeBytes(of: folderInfo.st_dev) { Array($0) } + withUnsafeBytes(of: folderInfo.st_ino) { Array($0) }
            + name.bytes.map { UInt8(bitPattern: $0) }
        guard seen.insert(key).inserted else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG where info.st_nlink > 1:
            guard options.selection.selects(name.bytes, modified: info.st_mtim) else { return }
            let id = FileID(info)
            names[id, default: 0] += 1
            linkCounts[id] = Int(info.st_nlink)
        case S_IFDIR where options.recursive:
            guard folders.insert(FileID(info)).inserted else { return }
            let fd = openat(folder, name.bytes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            guard let children = try? Shredder.list(fd) else { return }
            for child in children { visit(child, in: fd, options: options) }
        default:
            return
        }
    }
}

internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Destroys files and trees, in the stages of coreutils shred: overwrite each file in
/// place (every pass synced), wipe its name from the folder, truncate it, unlink it.
///
/// Everything is done relative to open folder descriptors and nothing is followed:
/// entries are looked at with `AT_SYMLINK_NOFOLLOW`, opened with `O_NOFOLLOW`, and the
/// opened file must be the one looked at (same device and inode) or it is left alone,
/// so swapping a file for a link while the run goes on cannot redirect it. A folder
/// is removed only with `recursive`, and only once everything in it was destroyed.
///
/// The files of one folder are handled in batches: overwritten by a few threads at
/// once (their syncs share the journal's commits), then their names are wiped
/// together, one folder sync per round.
public final class Shredder {
    public private(set) var options: ShredOptions
    public private(set) var summary = ShredSummary()
    private let onEvent: (ShredEvent) -> Void
    private let progress: ProgressCounter?
    /// Devices whose file system was already checked for in-place overwrites.
    private var checkedDevices = Set<UInt>()
    /// Test hook: sees every rename of the name wipe (folder path, old name, new name).
    var traceRename: ((String, String, String) -> Void)?

    /// At most this many files of one folder are open at once.
    static let batchLimit = 256

    /// - Parameters:
    ///   - progress: gets the total count of bytes written so far (from any thread).
    ///   - onEvent: gets every event, on the calling thread, as it happens.
    public init(options: ShredOptions, progress: (@Sendable (Int) -> Void)? = nil,
                onEvent: @escaping (ShredEvent) -> Void = { _ in }) {
        self.options = options
        self.onEvent = onEvent
        self.progress = progress.map(ProgressCounter.init)
        summary.dryRun = options.dryRun
        summary.kept = options.keep
        summary.passes = options.passes
        summary.zeroPass = options.zeroPass
    }

    /// An entry of a folder, as lstat saw it.
    struct Entry: @unchecked Sendable {
        // Sendable: plain values (stat is a record of integers).
        let name: FileName
        let path: String
        let info: stat
        var type: mode_t { info.st_mode & S_IFMT }
    }

    /// Shreds every path named (files, links, devices, and folders with `recursive`).
    @discardableResult
    public func shred(_ paths: [String]) -> ShredSummary {
        shred(rawPaths: paths.map { Array($0.utf8) })
    }

    /// The same for paths as the bytes the kernel takes (command-line arguments need
    /// not be UTF-8).
    @discardableResult
    public func shred(rawPaths paths: [[UInt8]]) -> ShredSummary {
        if !options.force { options.completeLinkSets = HardLinkCensus.completeSets(paths, options: options) }
        // Consecutive arguments in the same folder are destroyed as one batch.
        var pending: (folder: FileName, fd: Int32, entries: [Entry])?
        func flush() {
            guard let batch = pending else { return }
            destroy(batch.entries, in: batch.fd, folderPath: batch.folder.description)
            close(batch.fd)
            pending = nil
        }
        for path in paths {
            guard let (folder, name, shown) = Self.split(path) else {
                emit(.skipped(path: FileName.text(path), reason: .specialName))
                continue
            }
            if pending?.folder != folder {
                flush()
                let fd = open(folder.bytes, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard fd >= 0 else {
                    emit(.failed(path: shown, reason: IOError("cannot open folder", path: folder.description).description))
                    continue
                }
                pending = (folder, fd, [])
            }
            let folderFD = pending!.fd
            var info = stat()
            guard fstatat(folderFD, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                emit(.failed(path: shown, reason: IOError("cannot shred", path: shown).description))
                continue
            }
            let entry = Entry(name: name, path: shown, info: info)
            // sysfs, proc and the like are refused outright (devices, refused or
            // overwritten for what they are, live on devtmpfs).
            if [S_IFREG, S_IFDIR, S_IFLNK].contains(entry.type),
               let kind = FileSystemKind.of(name.bytes, in: folderFD), kind.pseudo {
                emit(.skipped(path: shown, reason: .pseudoFileSystem(kind.name)))
                continue
            }
            switch entry.type {
            case S_IFDIR:
                guard options.recursive else {
                    emit(.skipped(path: shown, reason: .folderWithoutRecursive))
                    continue
                }
                if shredFolder(entry, in: folderFD, root: nil, named: true) {
                    // A mount point named on the command line: its content went, the
                    // folder can't (and shouldn't) be removed.
                    if let parentMount = MountIdentity.of(fd: folderFD),
                       !MountIdentity.of(name.bytes, in: folderFD, info: info).sameMount(as: parentMount) {
                        emit(.keptMountPoint(path: shown))
                    } else {
                        pending!.entries.append(entry)
                    }
                }
            case S_IFBLK where options.devices:
                if options.selection.selects(name.bytes, modified: info.st_mtim) { overwriteDevice(entry, in: folderFD) }
            default:
                if disposition(of: entry, inTree: false) { pending!.entries.append(entry) }
            }
            if pending!.entries.count >= Self.batchLimit {
                destroy(pending!.entries, in: folderFD, folderPath: folder.description)
                pending!.entries = []
            }
        }
        flush()
        return summary
    }

    // MARK: stages

    /// Shreds what a folder holds, depth first; true when the folder itself should go:
    /// everything in it was destroyed, and either nothing was filtered (rm -r) or, with a
    /// filter, it held something and it is a subfolder under `pruneEmpty` or a folder
    /// `named` on the command line under `removeRoots` (as `find DIR -mindepth 1`, a
    /// filtered run chooses among the entries inside the folders named, never them).
    /// The walk stays on `root`, the mount it started on (the folder's own for the folder
    /// named): entries on another mount, bind mounts included, are skipped and reported.
    private func shredFolder(_ entry: Entry, in parent: Int32, root: MountIdentity?, named: Bool = false) -> Bool {
        let fd = openat(parent, entry.name.bytes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR { emit(.skipped(path: entry.path, reason: .changedMeanwhile)) }
            else { emit(.failed(path: entry.path, reason: IOError("cannot open folder", path: entry.path).description)) }
            return false
        }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_dev == entry.info.st_dev, opened.st_ino == entry.info.st_ino else {
            emit(.skipped(path: entry.path, reason: .changedMeanwhile))
            return false
        }
        guard let here = MountIdentity.of(fd: fd) else {
            emit(.failed(path: entry.path, reason: IOError("cannot look at folder", path: entry.path).description))
            return false
        }
        let root = root ?? here
        guard here.sameMount(as: root) else {
            emit(.skipped(path: entry.path, reason: .otherFileSystem))
            return false
        }
        let names: [FileName]
        do { names = try Self.list(fd) } catch {
            emit(.failed(path: entry.path, reason: IOError("cannot list folder", path: entry.path, code: error.code).description))
            return false
        }
        var everythingGone = true
        var batch: [Entry] = []
        var folders: [Entry] = []
        for name in names {
            var info = stat()
            let path = entry.path == "/" ? "/\(name)" : "\(entry.path)/\(name)"
            guard fstatat(fd, name.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }  // removed meanwhile by someone else
                emit(.failed(path: path, reason: IOError("cannot shred", path: path).description))
                everythingGone = false
                continue
            }
            let child = Entry(name: name, path: path, info: info)
            guard MountIdentity.of(name.bytes, in: fd, info: info).sameMount(as: root) else {
                emit(.skipped(path: path, reason: .otherFileSystem))
                everythingGone = false
                continue
            }
            if child.type == S_IFDIR { folders.append(child) }
            else if disposition(of: child, inTree: true) { batch.append(child) }
            else { everythingGone = false }
        }
        for folder in folders {
            if shredFolder(folder, in: fd, root: root) { batch.append(folder) } else { everythingGone = false }
        }
        var start = 0
        while start < batch.count {
            let chunk = Array(batch[start..<min(batch.count, start + Self.batchLimit)])
            if !destroy(chunk, in: fd, folderPath: entry.path) { everythingGone = false }
            start += chunk.count
        }
        guard everythingGone && !options.keep else { return false }
        guard options.selection.filters else { return true }
        return !names.isEmpty && (named ? options.removeRoots : options.pruneEmpty)
    }

    /// Whether a non-folder entry is to be destroyed; refusals are reported here.
    private func disposition(of entry: Entry, inTree: Bool) -> Bool {
        guard options.selection.selects(entry.name.bytes, modified: entry.info.st_mtim) else { return false }
        let refusal: ShredRefusal
        switch entry.type {
        case S_IFREG:
            let others = Int(entry.info.st_nlink) - 1
            guard others > 0 && !options.mayOverwrite(linked: entry.info) else { return true }
            refusal = .hardLinked(otherNames: others)
        case S_IFLNK: return !options.keep  // a link has no data of its own; --keep leaves it
        case S_IFIFO: refusal = .fifo
        case S_IFSOCK: refusal = .socket
        case S_IFCHR: refusal = .characterDevice
        case S_IFBLK: refusal = inTree ? .blockDeviceInTree : .blockDevice
        default: refusal = .unknownType
        }
        emit(.skipped(path: entry.path, reason: refusal))
        return false
    }

    /// Overwrites the regular files among `entries` (unless `keep`, then wipes every
    /// name and removes files, links and emptied folders). True when all went.
    @discardableResult
    private func destroy(_ entries: [Entry], in folder: Int32, folderPath: String) -> Bool {
        guard !entries.isEmpty else { return true }
        if let file = entries.first(where: { $0.type == S_IFREG }) { checkFileSystem(folder, path: file.path) }
        if options.dryRun {
            for entry in entries { emit(Self.doneEvent(for: entry)) }
            return true
        }
        var allGone = true
        // 1. Overwrite the files, a few at a time.
        let files = entries.indices.filter { entries[$0].type == S_IFREG }
        let outcomes = FileOverwrite.run(files.map { entries[$0] }, in: folder, options: options,
                                         progress: progress?.callback)
        var descriptors: [Int: (fd: Int32, info: stat)] = [:]
        var failed = Set<Int>()
        for (k, i) in files.enumerated() {
            switch outcomes[k] {
            case .overwritten(let fd, let info):
                if options.keep {
                    emit(Self.doneEvent(for: entries[i]))
                    close(fd)
                } else {
                    descriptors[i] = (fd, info)
                }
            case .refused(let refusal):
                emit(.skipped(path: entries[i].path, reason: refusal)); failed.insert(i); allGone = false
            case .failed(let reason):
                emit(.failed(path: entries[i].path, reason: reason)); failed.insert(i); allGone = false
            }
        }
        guard !options.keep else { return allGone }
        // 2. Wipe the names of everything that is to go.
        let going = entries.indices.filter { !failed.contains($0) }
        var wiper = NameWiper(folder: folder, removal: options.removal)
        if let traceRename { wiper.trace = { _, old, new in traceRename(folderPath, old.description, new.description) } }
        let finalNames = wiper.wipe(going.map { entries[$0].name }, paths: going.map { entries[$0].path })
        // 3. Truncate and unlink, checking each name still is what was wiped.
        for (k, i) in going.enumerated() {
            let entry = entries[i]
            let descriptor = descriptors[i]
            defer { if let descriptor { close(descriptor.fd) } }
            switch finalNames[k] {
            case .failure(let error):
                emit(.failed(path: entry.path, reason: error.description)); allGone = false
            case .success(let name):
                let renamed = name == entry.name ? "" : " (renamed to \"\(name)\")"
                var now = stat()
                let expected = descriptor?.info ?? entry.info
                guard fstatat(folder, name.bytes, &now, AT_SYMLINK_NOFOLLOW) == 0,
                      now.st_dev == expected.st_dev, now.st_ino == expected.st_ino else {
                    emit(.skipped(path: entry.path, reason: .changedMeanwhile)); allGone = false
                    continue
                }
                if let descriptor, ftruncate(descriptor.fd, 0) != 0 {
                    emit(.failed(path: entry.path, reason: IOError("cannot truncate", path: entry.path).description + renamed))
                    allGone = false
                    continue
                }
                guard unlinkat(folder, name.bytes, entry.type == S_IFDIR ? AT_REMOVEDIR : 0) == 0 else {
                    emit(.failed(path: entry.path, reason: IOError("cannot remove", path: entry.path).description + renamed))
                    allGone = false
                    continue
                }
                emit(Self.doneEvent(for: entry))
            }
        }
        _ = fsync(folder)
        return allGone
    }

    /// Overwrites a block device named on the command line; it is never removed.
    private func overwriteDevice(_ entry: Entry, in folder: Int32) {
        // O_EXCL on a block device: refuse one that is mounted or otherwise in use. A dry
        // run only reads its size.
        let mode = options.dryRun ? O_RDONLY : options.verify ? O_RDWR : O_WRONLY
        let fd = openat(folder, entry.name.bytes, mode | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            return emit(.failed(path: entry.path, reason: IOError("cannot open device", path: entry.path).description))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFBLK, info.st_rdev == entry.info.st_rdev else {
            return emit(.skipped(path: entry.path, reason: .changedMeanwhile))
        }
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else {
            return emit(.failed(path: entry.path, reason: IOError("cannot measure device", path: entry.path).description))
        }
        if options.dryRun { return emit(.overwroteDevice(path: entry.path, bytes: Int(size))) }
        do {
            try Overwriter(passes: options.passes, zeroPass: options.zeroPass, verify: options.verify)
                .overwrite(fd: fd, length: Int(size), path: entry.path, progress: progress?.callback)
            emit(.overwroteDevice(path: entry.path, bytes: Int(size)))
        } catch {
            emit(.failed(path: entry.path, reason: "\(error)"))
        }
    }

    // MARK: helpers

    private func emit(_ event: ShredEvent) {
        summary.record(event)
        onEvent(event)
    }

    private static func doneEvent(for entry: Entry) -> ShredEvent {
        switch entry.type {
        case S_IFREG: return .destroyed(path: entry.path, bytes: Int(entry.info.st_size))
        case S_IFDIR: return .removedFolder(path: entry.path)
        default: return .removedLink(path: entry.path)
        }
    }

    /// Warns once per file system that may not overwrite in place.
    private func checkFileSystem(_ fd: Int32, path: String) {
        var info = stat()
        guard fstat(fd, &info) == 0, checkedDevices.insert(UInt(info.st_dev)).inserted,
              let kind = FileSystemKind.of(fd: fd), !kind.overwritesInPlace else { return }
        emit(.weakFileSystem(path: path, kind: kind))
    }

    /// The folder and base name of a path as given, and the path without trailing
    /// slashes; nil for `/`, `.` and `..`, which are never shredded.
    static func split(_ path: [UInt8]) -> (folder: FileName, name: FileName, shown: String)? {
        var bytes = path
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        let shown = FileName.text(bytes)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let name = FileName(raw: bytes[(slash.map { $0 + 1 } ?? 0)...])
        guard name.count > 0, !name.isDotOrDotDot else { return nil }
        guard let slash else { return (FileName("."), name, shown) }
        return (slash == 0 ? FileName("/") : FileName(raw: bytes[..<slash]), name, shown)
    }

    /// The names in an open folder (without `.` and `..`), sorted.
    package static func list(_ fd: Int32) throws(IOError) -> [FileName] {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else {
            let error = IOError("cannot list folder")
            if copy >= 0 { close(copy) }
            throw error
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [FileName] = []
        while true {
            errno = 0
            guard let item = readdir(dir) else {
                if errno != 0 { throw IOError("cannot list folder") }
                break
            }
            let name = withUnsafeBytes(of: item.pointee.d_name) { FileName(raw: $0.prefix { $0 != 0 }) }
            if !name.isDotOrDotDot { names.append(name) }
        }
        return names.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }
}

/// Sums the bytes written by every thread into one running total.
final class ProgressCounter: @unchecked Sendable {
    // Sendable: `total` is only touched under `lock`.
    private let lock = PThreadMutex()
    private var total = 0
    private let report: @Sendable (Int) -> Void

    init(_ report: @escaping @Sendable (Int) -> Void) { self.report = report }

    var callback: @Sendable (Int) -> Void {
        { [self] n in
            let now = lock.withLock { total += n; return total }
            report(now)
        }
    }
}

internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// The first stage for the regular files of a batch: open each one without following
/// links, make sure it is the file that was looked at, and overwrite it in place. A
/// few files are done at once, each by one thread.
enum FileOverwrite {
    enum Outcome: @unchecked Sendable {
        // Sendable: plain values (a descriptor number and a stat record).
        /// Overwritten; `fd` stays open for the later stages (closed already with `keep`).
        case overwritten(fd: Int32, info: stat)
        case refused(ShredRefusal)
        case failed(String)
    }

    static func run(_ entries: [Shredder.Entry], in folder: Int32, options: ShredOptions,
                    progress: (@Sendable (Int) -> Void)?) -> [Outcome] {
        let threads = min(options.workers, entries.count)
        guard threads > 1 else {
            return entries.map { one($0, in: folder, options: options, progress: progress) }
        }
        let work = HandOff(value: entries)
        return WorkQueue.map(count: entries.count, workers: threads) { i in
            one(work.value[i], in: folder, options: options, progress: progress)
        }
    }

    /// Opens, checks and overwrites one file.
    static func one(_ entry: Shredder.Entry, in folder: Int32, options: ShredOptions,
                    progress: (@Sendable (Int) -> Void)?) -> Outcome {
        let flags = (options.verify ? O_RDWR : O_WRONLY) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        var fd = openat(folder, entry.name.bytes, flags)
        if fd < 0 && errno == EACCES && options.force && makeWritable(entry, in: folder, readable: options.verify) {
            fd = openat(folder, entry.name.bytes, flags)
        }
        guard fd >= 0 else {
            if errno == ELOOP { return .refused(.changedMeanwhile) }
            return .failed(IOError("cannot open", path: entry.path).description)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              info.st_dev == entry.info.st_dev, info.st_ino == entry.info.st_ino else {
            close(fd)
            return .refused(.changedMeanwhile)
        }
        // The walk never enters a pseudo file system; this holds even if one was mounted
        // over the path meanwhile (the magic number alone: devtmpfs needs the mount table).
        var magic: UInt = 0
        if vfs_fstatfs_type(fd, &magic) == 0, case let kind = FileSystemKind(magic: magic), kind.pseudo {
            close(fd)
            return .refused(.pseudoFileSystem(kind.name))
        }
        if info.st_nlink > 1 && !options.mayOverwrite(linked: info) {
            close(fd)
            return .refused(.hardLinked(otherNames: Int(info.st_nlink) - 1))
        }
        // The blocks that hold data, the last one's slack included (the size rounded up to
        // the block size, unless `exact`); holes are left holes.
        let size = Int(info.st_size)
        let block = info.st_blksize > 0 ? Int(info.st_blksize) : Overwriter.alignment
        let length = options.exact ? size : Overwriter.roundUp(size, to: block)
        let ranges = Overwriter.dataRanges(fd: fd, size: size, length: length, block: block)
        do {
            try Overwriter(passes: options.passes, zeroPass: options.zeroPass, verify: options.verify)
                .overwrite(fd: fd, length: length, ranges: ranges, path: entry.path, progress: progress)
            if options.keep {
                // Kept files keep their size.
                if length != size {
                    guard ftruncate(fd, off_t(size)) == 0, fdatasync(fd) == 0 else {
                        throw IOError("cannot restore the size of", path: entry.path)
                    }
                }
                close(fd)
            }
            return .overwritten(fd: fd, info: info)
        } catch {
            close(fd)
            return .failed("\(error)")
        }
    }

    /// With --force, a file the user owns but may not write is made writable first (as
    /// GNU shred -f does). Goes through an O_PATH handle so a link is never followed.
    private static func makeWritable(_ entry: Shredder.Entry, in folder: Int32, readable: Bool) -> Bool {
        let handle = vfs_open_path_nofollow(folder, entry.name.bytes)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        var info = stat()
        guard fstat(handle, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              info.st_dev == entry.info.st_dev, info.st_ino == entry.info.st_ino else { return false }
        let mode = (info.st_mode & 0o7777) | S_IWUSR | (readable ? S_IRUSR : 0)
        return chmod("/proc/self/fd/\(handle)", mode) == 0
    }
}

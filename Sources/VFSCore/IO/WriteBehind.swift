internal import CLinux
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Writes a large file back to disk as it grows, and drops what is written from the page
/// cache, a window at a time (as `dd oflag=nocache` does), for a file that is written
/// once from start to end and must reach the disk anyway: the files an extraction
/// writes (vfs-unwrap, vfs-fetch, vfs-cloud get), and the age payload an
/// `AtomicOutputFile` gets (vfs-encrypt and vfs-decrypt -o, which fsync it before it
/// appears: most of it is on disk by then).
///
/// Without it, every byte of such a file takes a page of memory that was free: on a
/// virtual machine whose host takes back free memory, writing to a fresh page costs far
/// more than the copy itself (1 GiB took 0.8-2.2 s of system time here, against 0.2-0.3 s
/// written behind), and the cache fills with pages nobody reads. Written behind, the
/// file's pages are recycled a few windows behind the writer; the writeback the kernel
/// would do later anyway is started by the writer instead. (A fetch's spool of ciphertext
/// is not written behind: it is removed once unpacked, usually before it ever reaches
/// the disk, and writing it back cost more than it saved.)
///
/// The first `window` bytes past `start` are left alone (a small file is never forced
/// to disk); then, each time `advance(to:)` completes a window, its writeback is started
/// (`sync_file_range` WRITE), and the window two behind it, whose writeback had time to
/// finish, is waited for and dropped (POSIX_FADV_DONTNEED), on a queue of its own. Only
/// the page cache is touched: the file's content is the same, and a crash loses what
/// it would lose anyway (this is not fsync). Calls that fail (a pipe, a file system
/// without writeback) are ignored: they are advice.
public final class WriteBehind: @unchecked Sendable {
    // Sendable: the counters belong to the one writing thread; the queue's jobs use only
    // the values they are given.
    /// The bytes per window.
    public static let defaultWindow: Int64 = 4 << 20
    /// Windows are whole multiples of this: the page cache keeps a file in folios of up
    /// to 2 MiB (x86-64's PMD size), and POSIX_FADV_DONTNEED drops none that reaches past
    /// the range it is given (1 MiB windows dropped nothing here).
    public static let unit: Int64 = 2 << 20

    public let fd: Int32
    public let window: Int64
    /// Writeback was asked for the bytes below this.
    public private(set) var started: Int64
    /// Dropping the bytes below this from the cache was asked for.
    public private(set) var dropped: Int64
    private var enabled: Bool
    /// The calls run in order on a queue of their own, on a duplicate of `fd`: waiting
    /// for the disk never holds up the writer (on a slow disk the pages stay cached a
    /// while longer, as they would without this).
    private var queue: DispatchQueue?
    private var queueFD: Int32 = -1

    /// For `fd`, whose bytes from `start` on are about to be written in order. Does
    /// nothing unless `fd` is a regular file.
    public init(fd: Int32, start: Int64 = 0, window: Int64 = WriteBehind.defaultWindow) {
        self.fd = fd
        self.window = max(Self.unit, (window + Self.unit - 1) / Self.unit * Self.unit)
        // Whole windows, the first one past `start` left alone.
        let first = (max(start, 0) / self.window + 1) * self.window
        started = first
        dropped = first
        var info = stat()
        enabled = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    deinit {
        if let queue {
            let fd = queueFD
            queue.async { close(fd) }
        }
    }

    /// The file holds its bytes below `position`.
    public func advance(to position: Int64) {
        while position - started >= window {
            let start = started
            started += window
            // Two windows behind what was just started: its writeback had time to end.
            var drop: [Int64] = []
            while started - dropped > 2 * window {
                drop.append(dropped)
                dropped += window
            }
            if enabled { schedule(writeBack: start, drop: drop) }
        }
    }

    /// Returns once every call asked for so far was made.
    public func wait() { queue?.sync {} }

    private func schedule(writeBack start: Int64, drop: [Int64]) {
        if queue == nil {
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                enabled = false
                return
            }
            queueFD = copy
            queue = DispatchQueue(label: "vfs.write-behind")
        }
        let fd = queueFD, window = self.window
        queue?.async {
            _ = vfs_sync_file_range(fd, start, window, 0)
            for offset in drop {
                _ = vfs_sync_file_range(fd, offset, window, 1)
                _ = posix_fadvise(fd, off_t(offset), off_t(window), POSIX_FADV_DONTNEED)
            }
        }
    }
}

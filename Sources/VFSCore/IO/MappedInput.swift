#if canImport(Glibc)
import Glibc
#endif

/// The rest of a regular file that a source would read: mapped instead of read, the
/// payload stream seals or opens chunks straight from the page cache (no copy into a
/// buffer, no read calls).
public struct FileRegion: Sendable {
    public let fd: Int32
    /// Where the rest starts in the file, and how many bytes it has.
    public let offset: Int
    public let count: Int
    /// For messages.
    public let name: String
}

/// A window of a `FileRegion`, mapped read-only and populated at once (MAP_POPULATE:
/// one call faults the whole window in, instead of a fault per page), unmapped on
/// deinit. Mapped pages count in the process's RSS, so a reader keeps only a few
/// windows mapped at a time.
///
/// A file that shrinks while it is mapped raises SIGBUS on the pages that are gone:
/// `SignalCleanup` then removes the temporary output files, prints a one-line error
/// and exits 74 (a read would have seen a short file instead). A shrink within the
/// last page gives zeros rather than SIGBUS; `MappedWindow.checkSize` catches that
/// one after the last window.
final class MappedWindow {
    let bytes: UnsafeRawBufferPointer
    private let base: UnsafeMutableRawPointer
    private let length: Int

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `count` bytes (more than 0) of `region` from `start` (relative to the region).
    init(_ region: FileRegion, from start: Int, count: Int) throws {
        precondition(count > 0)
        let position = region.offset + start
        let aligned = position & ~(Self.pageSize - 1)
        length = count + (position - aligned)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, region.fd, off_t(aligned)),
              mapped != MAP_FAILED else { throw IOError("cannot map", path: region.name) }
        base = mapped
        SignalCleanup.exitOnBusError(start: mapped, count: length, message: Self.shrankMessage(region.name))
        bytes = UnsafeRawBufferPointer(start: mapped + (position - aligned), count: count)
    }

    deinit {
        SignalCleanup.forgetMapping(start: base)
        munmap(base, length)
    }

    /// The line a SIGBUS in a window prints: the tool's own diagnostic format.
    static func shrankMessage(_ name: String) -> String {
        let tool = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "vfs"
        return "\(tool): error: cannot read \"\(DisplayText.printable(name))\": the file shrank while it was being read"
    }

    /// Throws if the file is now shorter than the end of `region` (it shrank within a
    /// page, which mapped reads see as zeros).
    static func checkSize(of region: FileRegion) throws {
        var info = stat()
        guard fstat(region.fd, &info) == 0 else { throw IOError("cannot read", path: region.name) }
        if Int(info.st_size) < region.offset + region.count {
            throw IOError("cannot read (the file shrank while it was being read)", path: region.name, code: EIO)
        }
    }

    /// Test hook (VFS_TEST_HOOKS=1 and VFS_TEST_SHRINK_INPUT=1 only): truncates the
    /// input to `size` bytes, so the next window is past its end, as a file truncated
    /// by another process while it is read.
    static func testHookShrink(_ region: FileRegion, to size: Int) {
        guard let hooks = getenv("VFS_TEST_HOOKS"), String(cString: hooks) == "1",
              let shrink = getenv("VFS_TEST_SHRINK_INPUT"), String(cString: shrink) == "1" else { return }
        _ = truncate("/proc/self/fd/\(region.fd)", off_t(region.offset + size))
    }
}

import Foundation
import Testing
import VFSTestSupport
@testable import VFSCore

@Suite("write-behind of large sequential files")
struct WriteBehindTests {
    static let window = WriteBehind.unit

    @Test("the windows: the first past the start left alone, writeback started a window at a time, dropped two behind")
    func windows() throws {
        let tmp = try TestFolder("behind")
        let fd = open(tmp.path + "/f", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let w = Self.window
        let behind = WriteBehind(fd: fd, window: w)
        #expect(behind.started == w && behind.dropped == w)
        let steps: [(Int64, Int64, Int64)] = [
            (w - 1, w, w), (2 * w - 1, w, w), (2 * w, 2 * w, w), (3 * w, 3 * w, w),
            (4 * w + 5, 4 * w, 2 * w), (9 * w, 9 * w, 7 * w),
        ]
        for (position, started, dropped) in steps {
            behind.advance(to: position)
            #expect(behind.started == started && behind.dropped == dropped, "at \(position)")
        }
        // Going back (a position already passed) changes nothing.
        behind.advance(to: 3 * w)
        #expect(behind.started == 9 * w && behind.dropped == 7 * w)
        // Resuming at an offset: whole windows, starting after the one that holds it.
        let resumed = WriteBehind(fd: fd, start: 5 * w + 10, window: w)
        #expect(resumed.started == 6 * w && resumed.dropped == 6 * w)
        // Windows are whole units (the page cache's largest folios): smaller ones round up.
        #expect(WriteBehind(fd: fd, window: 4096).window == WriteBehind.unit)
        #expect(WriteBehind(fd: fd, window: WriteBehind.unit + 1).window == 2 * WriteBehind.unit)
    }

    @Test("a file written behind is byte-identical, and what was dropped left the page cache")
    func contentAndCache() throws {
        let tmp = try TestFolder("behind")
        let path = tmp.path + "/f"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let content = Array(testBytes(Int(12 * Self.window) + 777))
        let behind = WriteBehind(fd: fd, window: Self.window)
        var written = 0
        while written < content.count {
            let piece = min(300_000, content.count - written)
            let n = content[written..<(written + piece)].withUnsafeBytes { pwrite(fd, $0.baseAddress!, piece, off_t(written)) }
            #expect(n == piece)
            written += piece
            behind.advance(to: Int64(written))
        }
        #expect(behind.dropped == 10 * Self.window)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == content)

        // mincore: the dropped windows are out of the cache unless the file system keeps
        // every page in memory anyway (tmpfs, ramfs), where dropping means nothing.
        guard let kind = FileSystemKind.of(fd: fd), kind.magic != FileSystemKind.tmpfsMagic, kind.magic != FileSystemKind.ramfsMagic else { return }
        // Reading the whole file above brought it back: write the first windows again.
        let again = open(path, O_RDWR | O_CLOEXEC)
        defer { close(again) }
        _ = posix_fadvise(again, 0, 0, POSIX_FADV_DONTNEED)
        let second = WriteBehind(fd: again, window: Self.window)
        let span = Int(8 * Self.window)
        let n = content.withUnsafeBytes { pwrite(again, $0.baseAddress!, span, 0) }
        #expect(n == span)
        second.advance(to: Int64(span))
        second.wait()
        #expect(second.dropped == 6 * Self.window)
        let resident = residentPages(again, length: span)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let droppedPages = resident[(Int(Self.window) / page)..<(Int(6 * Self.window) / page)]
        #expect(droppedPages.allSatisfy { !$0 }, "dropped windows still cached")
        // That the last windows were not dropped is `dropped` above: mincore can't say it,
        // since the kernel may evict any page under memory pressure (a busy machine, a
        // container's memory limit), and did on a CI-like run.
    }

    @Test("an atomic output's long run of writes is written behind; small writes are not; same bytes, also after a rewind")
    func atomicOutput() throws {
        let tmp = try TestFolder("behind")
        let path = tmp.path + "/out"
        let w = WriteBehind.defaultWindow
        let content = Array(testBytes(Int(5 * w) + 999))
        let file = try AtomicOutputFile(path: path)
        // Small writes (a header) are not written behind; the stream that follows is.
        try file.write(Array(content.prefix(1000)))
        #expect(file.behind == nil)
        file.prepareForStreaming()
        try file.write(Array(content.prefix(Int(2 * w))))
        #expect(file.behind?.started == 2 * w)
        // Rewound: the windows count from the start again.
        try file.rewind()
        #expect(file.behind?.started == w)
        var written = 0
        while written < content.count {
            let piece = min(300_000, content.count - written)
            try file.write(Array(content[written..<(written + piece)]))
            written += piece
        }
        #expect(file.behind?.started == 5 * w && file.behind?.dropped == 3 * w)
        try file.commit()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == content)
    }

    @Test("a pipe: nothing to write back, nothing fails")
    func pipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(Glibc.pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let behind = WriteBehind(fd: ends[1], window: Self.window)
        behind.advance(to: 10 * Self.window)
        #expect(behind.started == 10 * Self.window)
    }

    private func residentPages(_ fd: Int32, length: Int) -> [Bool] {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { return [] }
        defer { munmap(map, length) }
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        guard mincore(map, length, &vector) == 0 else { return [] }
        return vector.map { $0 & 1 == 1 }
    }
}

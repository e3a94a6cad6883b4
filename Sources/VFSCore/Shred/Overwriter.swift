import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Overwrites the bytes of an open file or block device in place: each pass writes
/// the given byte ranges through the same descriptor (so the file keeps its blocks)
/// and is flushed to the device (fdatasync) before the next one starts.
///
/// Random passes are an AES-256-CTR keystream under a fresh key per pass. Large writes
/// use direct I/O (no copy through the page cache) while a second thread prepares the
/// next chunk of the stream.
struct Overwriter {
    let passes: Int
    let zeroPass: Bool
    let verify: Bool

    static let chunkSize = 4 << 20
    static let alignment = 4096
    /// Below this a file is written through the page cache and synced.
    static let directThreshold = 1 << 20

    struct VerifyMismatch: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "verification failed: the data read back differs from the last pass at byte \(offset)" }
    }

    /// A write of `count` bytes at `offset`.
    struct Chunk: Sendable {
        let offset: Int
        let count: Int
    }

    /// Overwrites `ranges` of `fd` (all of `0..<length` when nil), which must be open
    /// for writing (and reading when `verify` is set). `progress` gets each write's count.
    func overwrite(fd: Int32, length: Int, ranges: [Range<Int>]? = nil, path: String,
                   progress: (@Sendable (Int) -> Void)?) throws {
        let passCount = passes + (zeroPass ? 1 : 0)
        let chunks = Self.chunks(of: ranges ?? [0..<length])
        let total = chunks.reduce(0) { $0 + $1.count }
        guard total > 0, passCount > 0 else { return }
        let aligned = chunks.allSatisfy { $0.offset % Self.alignment == 0 && $0.count % Self.alignment == 0 }
        var direct = total >= Self.directThreshold && aligned && vfs_set_direct_io(fd, 1) == 0
        defer { if direct { _ = vfs_set_direct_io(fd, 0) } }
        let bufferSize = chunks.map(\.count).max()!
        let pipelined = chunks.count > 2
        let buffers = (0..<(pipelined ? 3 : 1)).map { _ in AlignedBuffer(count: bufferSize) }
        let target = PassTarget(fd: fd, path: path, chunks: chunks)
        var lastStream: Keystream?
        for pass in 0..<passCount {
            let stream: Keystream? = pass < passes ? try Keystream() : nil
            if let stream, pipelined {
                try target.writePipelined(stream: stream, buffers: buffers, direct: &direct, progress: progress)
            } else {
                try target.writeSerial(stream: stream, buffer: buffers[0], direct: &direct, progress: progress)
            }
            while fdatasync(fd) != 0 {
                if errno != EINTR { throw IOError("cannot sync", path: path) }
            }
            lastStream = stream
        }
        if verify {
            try target.readBack(stream: lastStream?.restarted(), buffer: buffers[0], direct: direct)
        }
    }

    /// The ranges cut into writes of at most `chunkSize` bytes.
    static func chunks(of ranges: [Range<Int>]) -> [Chunk] {
        var out: [Chunk] = []
        for range in ranges {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let count = min(chunkSize, range.upperBound - offset)
                out.append(Chunk(offset: offset, count: count))
                offset += count
            }
        }
        return out
    }

    /// The parts of a regular file that hold data (SEEK_DATA / SEEK_HOLE), widened to
    /// whole blocks and ending at most at `length`: holes have no blocks to overwrite,
    /// and writing into them would only allocate new ones. The whole `0..<length` where
    /// the file system cannot tell.
    static func dataRanges(fd: Int32, size: Int, length: Int, block: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = 0
        while offset < size {
            let data = vfs_seek_data(fd, Int64(offset))
            if data < 0 {
                if errno == ENXIO { break }  // only a hole is left
                return [0..<length]
            }
            let hole = max(vfs_seek_hole(fd, data), data + 1)
            let start = Int(data) / block * block
            let end = min(roundUp(Int(hole), to: block), length)
            if let last = ranges.last, last.upperBound >= start {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, end)
            } else {
                ranges.append(start..<end)
            }
            offset = Int(hole)
        }
        return ranges
    }

    static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}

/// One descriptor's writes, in order.
private struct PassTarget {
    let fd: Int32
    let path: String
    let chunks: [Overwriter.Chunk]

    func writeSerial(stream: Keystream?, buffer: AlignedBuffer, direct: inout Bool, progress: (@Sendable (Int) -> Void)?) throws {
        if stream == nil { buffer.bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        for chunk in chunks {
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<chunk.count])
            try stream?.fill(bytes)
            try write(UnsafeRawBufferPointer(bytes), at: chunk.offset, direct: &direct)
            progress?(chunk.count)
        }
    }

    /// The stream is generated on a second thread into a ring of buffers while this
    /// thread writes the previous ones.
    func writePipelined(stream: Keystream, buffers: [AlignedBuffer], direct: inout Bool, progress: (@Sendable (Int) -> Void)?) throws {
        let free = BlockingQueue<Int>(), full = BlockingQueue<Int>()
        for i in buffers.indices { free.put(i) }
        let shared = HandOff(value: (stream, buffers, chunks))
        let failure = ErrorBox()
        let producer = JoinableThread {
            let (stream, buffers, chunks) = shared.value
            for chunk in chunks {
                guard let i = free.take() else { return }
                do { try stream.fill(UnsafeMutableRawBufferPointer(rebasing: buffers[i].bytes[0..<chunk.count])) } catch {
                    failure.set(error)
                    full.cancel()
                    return
                }
                full.put(i)
            }
        }
        defer { free.cancel(); producer.join() }
        for chunk in chunks {
            guard let i = full.take() else { break }
            try write(UnsafeRawBufferPointer(rebasing: buffers[i].bytes[0..<chunk.count]), at: chunk.offset, direct: &direct)
            progress?(chunk.count)
            free.put(i)
        }
        if let error = failure.get() { throw error }
    }

    /// pwrite until every byte is written; falls back to buffered I/O if the file
    /// system refuses direct I/O.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, direct: inout Bool) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                if direct && errno == EINVAL {
                    direct = false
                    _ = vfs_set_direct_io(fd, 0)
                    continue
                }
                throw IOError("cannot write", path: path)
            }
            guard n > 0 else { throw IOError("cannot write", path: path, code: ENOSPC) }
            done += n
        }
    }

    /// Reads the chunks back from the device (direct I/O, or after dropping the cached
    /// pages) and compares them with the last pass.
    func readBack(stream: Keystream?, buffer: AlignedBuffer, direct: Bool) throws {
        if !direct { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) }
        let expected = AlignedBuffer(count: buffer.count)
        for chunk in chunks {
            let got = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<chunk.count])
            var done = 0
            while done < chunk.count {
                let r = pread(fd, got.baseAddress! + done, chunk.count - done, off_t(chunk.offset + done))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else { throw IOError("cannot read back", path: path, code: r == 0 ? EIO : errno) }
                done += r
            }
            let want = UnsafeMutableRawBufferPointer(rebasing: expected.bytes[0..<chunk.count])
            if let stream { try stream.fill(want) } else { want.initializeMemory(as: UInt8.self, repeating: 0) }
            if memcmp(got.baseAddress!, want.baseAddress!, chunk.count) != 0 {
                let at = (0..<chunk.count).first { got[$0] != want[$0] } ?? 0
                throw Overwriter.VerifyMismatch(offset: chunk.offset + at)
            }
        }
    }
}

/// Page-aligned memory (direct I/O needs it), freed with its owner.
final class AlignedBuffer: @unchecked Sendable {
    // Sendable: a buffer is used by one thread at a time, handed over through BlockingQueue.
    let bytes: UnsafeMutableRawBufferPointer
    var count: Int { bytes.count }

    init(count: Int) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: Overwriter.alignment)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { bytes.deallocate() }
}

/// The first error another thread met.
final class ErrorBox: @unchecked Sendable {
    // Sendable: `error` is only touched under `lock`.
    private let lock = PThreadMutex()
    private var error: Error?
    func set(_ value: Error) { lock.withLock { if error == nil { error = value } } }
    func get() -> Error? { lock.withLock { error } }
}

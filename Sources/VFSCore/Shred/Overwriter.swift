import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Overwrites the bytes of an open file or block device in place: each pass writes
/// `length` bytes from offset 0 through the same descriptor (so the file keeps its
/// blocks) and is flushed to the device (fdatasync) before the next one starts.
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

    /// Overwrites `length` bytes of `fd`, which must be open for writing (and reading
    /// when `verify` is set). `progress` gets the count of each write.
    func overwrite(fd: Int32, length: Int, path: String, progress: (@Sendable (Int) -> Void)?) throws {
        let passCount = passes + (zeroPass ? 1 : 0)
        guard length > 0, passCount > 0 else { return }
        var direct = length >= Self.directThreshold && length % Self.alignment == 0 && vfs_set_direct_io(fd, 1) == 0
        defer { if direct { _ = vfs_set_direct_io(fd, 0) } }
        let bufferSize = min(Self.chunkSize, Self.roundUp(length, to: Self.alignment))
        let pipelined = length > 2 * Self.chunkSize
        let buffers = (0..<(pipelined ? 3 : 1)).map { _ in AlignedBuffer(count: bufferSize) }
        var lastStream: Keystream?
        for pass in 0..<passCount {
            let stream: Keystream? = pass < passes ? try Keystream() : nil
            let target = PassTarget(fd: fd, path: path, length: length)
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
            try readBack(fd: fd, length: length, path: path, stream: lastStream?.restarted(), buffer: buffers[0], direct: direct)
        }
    }

    /// Reads the file back from the device (direct I/O, or after dropping its cached
    /// pages) and compares it with the last pass.
    private func readBack(fd: Int32, length: Int, path: String, stream: Keystream?, buffer: AlignedBuffer, direct: Bool) throws {
        if !direct { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) }
        let expected = AlignedBuffer(count: buffer.count)
        var offset = 0
        while offset < length {
            let n = min(buffer.count, length - offset)
            let got = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<n])
            var done = 0
            while done < n {
                let r = pread(fd, got.baseAddress! + done, n - done, off_t(offset + done))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else { throw IOError("cannot read back", path: path, code: r == 0 ? EIO : errno) }
                done += r
            }
            let want = UnsafeMutableRawBufferPointer(rebasing: expected.bytes[0..<n])
            if let stream { try stream.fill(want) } else { want.initializeMemory(as: UInt8.self, repeating: 0) }
            if memcmp(got.baseAddress!, want.baseAddress!, n) != 0 {
                let at = (0..<n).first { got[$0] != want[$0] } ?? 0
                throw VerifyMismatch(offset: offset + at)
            }
            offset += n
        }
    }

    static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}

/// One pass's writes to one descriptor.
private struct PassTarget {
    let fd: Int32
    let path: String
    let length: Int

    func writeSerial(stream: Keystream?, buffer: AlignedBuffer, direct: inout Bool, progress: (@Sendable (Int) -> Void)?) throws {
        if stream == nil { buffer.bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        var offset = 0
        while offset < length {
            let n = min(buffer.count, length - offset)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<n])
            try stream?.fill(chunk)
            try write(UnsafeRawBufferPointer(chunk), at: offset, direct: &direct)
            offset += n
            progress?(n)
        }
    }

    /// The stream is generated on a second thread into a ring of buffers while this
    /// thread writes the previous ones.
    func writePipelined(stream: Keystream, buffers: [AlignedBuffer], direct: inout Bool, progress: (@Sendable (Int) -> Void)?) throws {
        let free = BlockingQueue<Int>(), full = BlockingQueue<Int>()
        for i in buffers.indices { free.put(i) }
        let size = buffers[0].count, length = self.length
        let shared = HandOff(value: (stream, buffers))
        let failure = ErrorBox()
        let producer = JoinableThread {
            let (stream, buffers) = shared.value
            var offset = 0
            while offset < length {
                guard let i = free.take() else { return }
                let n = min(size, length - offset)
                do { try stream.fill(UnsafeMutableRawBufferPointer(rebasing: buffers[i].bytes[0..<n])) } catch {
                    failure.set(error)
                    full.cancel()
                    return
                }
                full.put(i)
                offset += n
            }
        }
        defer { free.cancel(); producer.join() }
        var offset = 0
        while offset < length {
            guard let i = full.take() else { break }
            let n = min(size, length - offset)
            try write(UnsafeRawBufferPointer(rebasing: buffers[i].bytes[0..<n]), at: offset, direct: &direct)
            offset += n
            progress?(n)
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
    private let lock = Mutex()
    private var error: Error?
    func set(_ value: Error) { lock.withLock { if error == nil { error = value } } }
    func get() -> Error? { lock.withLock { error } }
}

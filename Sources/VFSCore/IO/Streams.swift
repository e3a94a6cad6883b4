#if canImport(Glibc)
import Glibc
#endif

/// Something bytes are read from.
public protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 means end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Called before a long run of large reads (an age payload): a pipe is enlarged.
    func prepareForStreaming()
    /// The rest of the input when it is a regular file that may be mapped instead of
    /// read (`MappedWindow`); nil otherwise. Mapping it leaves the source unread.
    func mappableRegion() -> FileRegion?
    /// The next bytes where the source holds them, without a copy (a pipe whose writer
    /// waits meanwhile), valid until the next call on the source; empty at the end of
    /// input. Nil when the source has none to lend this way: `read(into:)` then.
    func borrow() throws -> UnsafeRawBufferPointer?
}

/// Something bytes are written to.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Called once when all data has been written (armor writes its footer here).
    func finish() throws
    /// Called before a long run of large writes (an age payload): a pipe is enlarged.
    func prepareForStreaming()
}

extension ByteSink {
    public func finish() throws {}
    public func prepareForStreaming() {}
    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
}

extension ByteSource {
    public func prepareForStreaming() {}
    public func mappableRegion() -> FileRegion? { nil }
    public func borrow() throws -> UnsafeRawBufferPointer? { nil }

    /// Reads until `buffer` is full or the input ends; returns the count read.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var total = 0
        while total < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
            if n == 0 { break }
            total += n
        }
        return total
    }

    /// Reads the whole input (for small inputs: identity files, policies).
    public func readAll() throws -> [UInt8] {
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try read(into: $0) }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }
}

/// Reads a file descriptor; owns it when asked to.
public final class FileDescriptorSource: ByteSource {
    public let fd: Int32
    public let name: String
    private let owned: Bool
    /// Whether a regular file may be mapped instead of read (`mappableRegion()`). Only
    /// a caller whose every output is cleaned up by `SignalCleanup` turns it on: a file
    /// that shrinks under the mapping ends the process with SIGBUS (exit 74).
    public var allowsMapping = false

    public init(fd: Int32, name: String, owned: Bool = false) {
        self.fd = fd
        self.name = name
        self.owned = owned
    }

    /// Opens `path` for reading.
    public convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError("cannot open", path: path) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw IOError("cannot read", path: path, code: EISDIR)
        }
        self.init(fd: fd, name: path, owned: true)
    }

    public static func standardInput() -> FileDescriptorSource {
        FileDescriptorSource(fd: STDIN_FILENO, name: "standard input")
    }

    deinit { if owned { close(fd) } }

    public func prepareForStreaming() { PipeBuffer.enlarge(fd) }

    public func mappableRegion() -> FileRegion? {
        guard allowsMapping else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let position = Int(lseek(fd, 0, SEEK_CUR))
        guard position >= 0, Int(info.st_size) >= position else { return nil }
        return FileRegion(fd: fd, offset: position, count: Int(info.st_size) - position, name: name)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        guard n >= 0 else { throw IOError("cannot read", path: name) }
        return n
    }

    /// The size of a regular file, for progress; nil for pipes and terminals.
    public var regularFileSize: Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}

/// Writes to a file descriptor, retrying short writes.
public final class FileDescriptorSink: ByteSink {
    public let fd: Int32
    public let name: String
    private let owned: Bool

    public init(fd: Int32, name: String, owned: Bool = false) {
        self.fd = fd
        self.name = name
        self.owned = owned
    }

    deinit { if owned { close(fd) } }

    public static func standardOutput() -> FileDescriptorSink {
        FileDescriptorSink(fd: STDOUT_FILENO, name: "standard output")
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try writeAll(fd: fd, bytes) } catch { throw IOError("cannot write", path: name, code: error.code) }
    }

    public func prepareForStreaming() { PipeBuffer.enlarge(fd) }
}

/// Linux pipes hold 64 KiB unless asked otherwise, so a reader or writer of a busy
/// pipe wakes up (and the program at the other end with it) for every 64 KiB. Asking
/// for 1 MiB (`F_SETPIPE_SZ`, up to /proc/sys/fs/pipe-max-size, which an unprivileged
/// process may ask for) lets a payload move in batches of 1 MiB instead.
enum PipeBuffer {
    static let wanted = 1 << 20
    // <linux/fcntl.h>: F_LINUX_SPECIFIC_BASE (1024) + 7 and + 8; Glibc's module lacks them.
    static let setSize: Int32 = 1031
    static let getSize: Int32 = 1032

    /// Enlarges `fd`'s pipe, if it is one; failure (a per-user limit reached, an old
    /// kernel) only leaves the pipe as it was.
    static func enlarge(_ fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return }
        let size = min(wanted, maximum() ?? wanted)
        guard fcntl(fd, getSize) < size else { return }
        _ = fcntl(fd, setSize, Int32(size))
    }

    /// /proc/sys/fs/pipe-max-size.
    static func maximum() -> Int? {
        let fd = open("/proc/sys/fs/pipe-max-size", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return Int(String(decoding: buffer[0..<n], as: UTF8.self).trimmingWhitespace().filter { $0 != "\n" })
    }

    /// The size of `fd`'s pipe, nil if it is not a pipe.
    static func size(_ fd: Int32) -> Int? {
        let n = fcntl(fd, getSize)
        return n > 0 ? Int(n) : nil
    }
}

/// Collects everything written, for tests and small in-memory outputs.
final class MemorySink: ByteSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ data: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: data) }
}

/// Serves a byte array, for tests and in-memory inputs (a cloud file's first bytes).
package final class MemorySource: ByteSource {
    private let data: [UInt8]
    private var offset = 0
    public init<Bytes: Sequence>(_ data: Bytes) where Bytes.Element == UInt8 { self.data = Array(data) }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, data.count - offset)
        guard n > 0 else { return 0 }
        data.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}

/// A source with a read-ahead buffer: lines for the age header, peeking for format
/// detection, then plain reads that drain the buffer before reading on.
public final class BufferedSource: ByteSource {
    private let base: ByteSource
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    public init(_ base: ByteSource) { self.base = base }

    public func prepareForStreaming() { base.prepareForStreaming() }

    /// The base's region with the bytes buffered but not consumed in front: they are
    /// the bytes just before the base's position.
    public func mappableRegion() -> FileRegion? {
        guard let region = base.mappableRegion(), region.offset >= available else { return nil }
        return FileRegion(fd: region.fd, offset: region.offset - available, count: region.count + available, name: region.name)
    }

    private var available: Int { buffer.count - start }

    /// The base's bytes in place once the buffered ones were read (nil until then, and
    /// when the base lends none).
    public func borrow() throws -> UnsafeRawBufferPointer? {
        if available > 0 { return nil }
        if atEnd { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return try base.borrow()
    }

    /// Makes at least `count` bytes available unless the input ends first.
    @discardableResult
    private func fill(atLeast count: Int) throws -> Bool {
        while available < count && !atEnd {
            if start > 0 && (start == buffer.count || start >= 65536) {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: max(4096, count - available))
            let n = try chunk.withUnsafeMutableBytes { try base.read(into: $0) }
            if n == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        }
        return available >= count
    }

    /// Up to `count` bytes from the current position, not consumed.
    public func peek(_ count: Int) throws -> ArraySlice<UInt8> {
        try fill(atLeast: count)
        return buffer[start..<(start + min(count, available))]
    }

    /// The next line including its LF, or what is left before the end of input (no LF).
    /// Empty at end of input.
    ///
    /// A line longer than `maxLength` bytes (its LF not counted) is not read whole:
    /// the first `maxLength + 1` bytes come back without an LF and are consumed, so
    /// memory stays bounded whatever the input holds.
    public func readLine(maxLength: Int = .max - 1) throws -> [UInt8] {
        precondition(maxLength >= 0 && maxLength < .max)
        var searchFrom = start
        while true {
            if let lf = buffer[searchFrom...].firstIndex(of: 0x0A), lf - start <= maxLength {
                let line = Array(buffer[start...lf])
                start = lf + 1
                return line
            }
            if available > maxLength {
                let line = Array(buffer[start..<(start + maxLength + 1)])
                start += maxLength + 1
                return line
            }
            searchFrom = buffer.count
            let before = available
            try fill(atLeast: available + 1)
            if available == before {
                let rest = Array(buffer[start...])
                start = buffer.count
                return rest
            }
            searchFrom = start + before
        }
    }

    public func read(into out: UnsafeMutableRawBufferPointer) throws -> Int {
        if available > 0 {
            let n = min(out.count, available)
            buffer.withUnsafeBytes { src in out.baseAddress!.copyMemory(from: src.baseAddress! + start, byteCount: n) }
            start += n
            return n
        }
        if atEnd { return 0 }
        return try base.read(into: out)
    }
}

extension ByteSource {
    /// Copies the rest of this source into `sink`, 1 MiB at a time.
    package func copy(to sink: ByteSink) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try read(into: $0) }
            if n == 0 { return }
            try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }
}

import Crypto
import Foundation
import NIOCore
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// Where ciphertext lives: uploads in progress and finished blobs, as files. Content
/// is always streamed in chunks, never held whole in memory.
public protocol BlobStore: Sendable {
    /// Creates the (empty) file of a new upload.
    func createUpload(_ id: String) async throws
    /// Writes a request body at `offset`; calls `progress` with the new offset after
    /// each durable step (the file is synced first, in the background while the body
    /// goes on arriving), and returns the final offset once it is synced.
    /// Stops with `BlobStoreError.tooLong` past `limit`. With `hashing` the bytes are
    /// hashed as they are written, so that `digest` of the recorded offset reads nothing
    /// again; without it (an upload whose digest is deferred, `DeferredDigest`) nothing
    /// is hashed, and a `digest` reads the bytes.
    ///
    /// With `accept` the body's bytes are provisional (tus's checksum extension): nothing
    /// is recorded while they arrive; once the body ended, `accept` is asked (it throws to
    /// refuse them), and only then are they recorded, at once. A body that fails, passes
    /// `limit` or is refused leaves the upload as it was, at `offset`.
    func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64, hashing: Bool,
                                                accept: (@Sendable () async throws -> Void)?,
                                                progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer
    /// The SHA-256 of an upload's first `length` bytes (all recorded), as lowercase hex:
    /// from the hash kept while they were appended, reading only the bytes it lacks.
    func digest(upload: String, length: Int64) async throws -> String
    func deleteUpload(_ id: String) async
    /// Makes a finished upload's file also the blob `blob`; the upload file stays until
    /// `deleteUpload` (after the database recorded the blob), so a process killed in
    /// between leaves the upload whole for a retry, and the blob an orphan for gc.
    func adopt(upload: String, as blob: String) async throws
    /// `adopt`, with the blob kept from deletion until `lockedUntil` where the store can
    /// (issue 48: S3 Object Lock in governance mode, where the bucket has it).
    func adopt(upload: String, as blob: String, lockedUntil: Date?) async throws
    /// Takes the blob away again (the database refused it); the upload is untouched.
    func unadopt(blob: String, upload: String) async
    func deleteBlob(_ id: String) async
    /// The operator's deletion (`vfs-relay transfers rm`): also of a blob still locked
    /// (S3: `x-amz-bypass-governance-retention`).
    func deleteLockedBlob(_ id: String) async
    /// A check of whether a blob exists that the sweep may call while the database is
    /// locked (so it does no I/O of its own that could wait: a folder checks the file, an
    /// object store answers from one listing made before).
    func existenceCheck() async throws -> @Sendable (String) -> Bool
    /// Blob ids stored whose file was last touched before `date`.
    func blobs(olderThan date: Date) async throws -> Set<String>
    func uploads(olderThan date: Date) async throws -> Set<String>
    /// Writes a new blob `blob`: `header`, then the bytes of `source` after its first
    /// `replacing` bytes (a rekey's new age header in front of the same payload).
    /// Returns the new blob's size and SHA-256.
    func rewrite(blob source: String, replacing: Int64, with header: [UInt8], as blob: String) async throws -> (size: Int64, sha256: String)
    /// Reads `range` of a blob in chunks.
    func read(blob: String, range: Range<Int64>, chunk: Int,
              into write: (ByteBuffer) async throws -> Void) async throws
    /// Reads `range` of an upload that is still being written (bytes the database
    /// recorded, so synced), in chunks: a streaming transfer's content.
    func read(upload: String, range: Range<Int64>, chunk: Int,
              into write: (ByteBuffer) async throws -> Void) async throws
    /// Whether `read(upload:)` can serve an upload in progress; without it a transfer is
    /// made only of a whole upload (`"streaming"` is not honoured).
    var readsUploadsInProgress: Bool { get }
    /// Checks, before a download's answer starts, that the blob can be read now: a store
    /// that does not answer throws `BlobStoreError.unavailable` while the answer can
    /// still be 503 with Retry-After, not a 200 cut off after its headers.
    func probe(blob: String) async throws
}

extension BlobStore {
    /// `append` whose bytes count as they are recorded (no `accept`), hashed as they are written.
    public func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64,
                                                       progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer {
        try await append(body, upload: upload, offset: offset, limit: limit, hashing: true, accept: nil, progress: progress)
    }

    /// `append`, hashed as the bytes are written.
    public func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64,
                                                       accept: (@Sendable () async throws -> Void)?,
                                                       progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer {
        try await append(body, upload: upload, offset: offset, limit: limit, hashing: true, accept: accept, progress: progress)
    }

    /// The SHA-256 of a blob, as lowercase hex, read whole (a digest deferred until a
    /// client asked for it, `DeferredDigest`).
    func digest(blob: BlobRef) async throws -> String {
        var hash = SHA256()
        var count: Int64 = 0
        try await read(blob: blob.id, range: 0..<blob.size, chunk: 1 << 20) { chunk in
            chunk.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            count += Int64(chunk.readableBytes)
        }
        guard count == blob.size else { throw BlobStoreError.io("blob \(blob.id) holds \(count) bytes, not \(blob.size)") }
        return Secrets.hex(hash.finalize())
    }

    public var readsUploadsInProgress: Bool { true }
    /// Files on the relay's own disk: nothing to ask first.
    public func probe(blob: String) async throws {}
    /// A folder locks nothing: the relay's database alone keeps a retained transfer.
    public func adopt(upload: String, as blob: String, lockedUntil: Date?) async throws { try await adopt(upload: upload, as: blob) }
    public func deleteLockedBlob(_ id: String) async { await deleteBlob(id) }
}

/// Whether a background sync of an upload is running.
final class FlushState: Sendable {
    private let running = NIOLockedValueBox(false)
    var isIdle: Bool { running.withLockedValue { !$0 } }
    func busy() { running.withLockedValue { $0 = true } }
    func done() { running.withLockedValue { $0 = false } }
}

public enum BlobStoreError: Error {
    case tooLong
    /// The disk (or the user's disk quota) is full: ENOSPC, EDQUOT.
    case noSpace
    case missing(String)
    case io(String)
    /// The store did not answer, dropped the connection, failed (5xx) or throttled the
    /// request: worth trying again later.
    case unavailable(String)
}

/// The blob store in the data folder: `uploads/ID` and `blobs/ID`.
public struct FileBlobStore: BlobStore {
    public let root: URL
    /// The running SHA-256 of the uploads this process appended to.
    let hashes: UploadHashes
    var uploadsFolder: String { root.appendingPathComponent("uploads").path }
    var blobsFolder: String { root.appendingPathComponent("blobs").path }

    var trashFolder: String { root.appendingPathComponent("trash").path }

    /// `hashesPruneAt`: how many kept upload hashes make it look for uploads that are
    /// gone (`UploadHashes.prune`).
    public init(root: URL, hashesPruneAt: Int = 1024) throws {
        self.root = root
        hashes = UploadHashes(pruneAt: hashesPruneAt)
        for folder in ["uploads", "blobs", "trash"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        // Blobs a stopped relay had not finished deleting.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: trashFolder)) ?? [] { unlink("\(trashFolder)/\(name)") }
    }

    func uploadPath(_ id: String) -> String { "\(uploadsFolder)/\(id)" }
    func blobPath(_ id: String) -> String { "\(blobsFolder)/\(id)" }

    public func createUpload(_ id: String) throws {
        let fd = open(uploadPath(id), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BlobStoreError.io("cannot create upload file: \(String(cString: strerror(errno)))") }
        close(fd)
    }

    /// How many bytes are written between two recorded offsets.
    static let checkpoint: Int64 = 8 << 20

    public func append<Body: AsyncSequence & Sendable>(_ body: Body, upload: String, offset: Int64, limit: Int64, hashing: Bool,
                                                       accept: (@Sendable () async throws -> Void)?,
                                                       progress: @escaping @Sendable (Int64) async throws -> Void) async throws -> Int64
        where Body.Element == ByteBuffer {
        let fd = open(uploadPath(upload), O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStoreError.missing(upload) }
        defer { close(fd) }
        // The hash of the bytes before `offset` (all recorded), continued with each byte
        // written, on its own task beside this one (`BackgroundHasher`); none when the
        // upload's digest is deferred.
        let hasher = hashing ? BackgroundHasher(continuing: try hashed(upload, fd: fd, to: offset)) : nil
        defer { hasher?.close() }
        let hashes = self.hashes
        hashes.prune { access(uploadPath($0), F_OK) == 0 }
        var position = offset
        // One sync at a time runs beside the writes, so the disk works while the network
        // does; its offset is recorded once the sync returned (never a byte not on disk),
        // and then the hash of the bytes up to it is kept.
        var flushing: Task<Void, Error>?
        var flushed = offset
        let idle = FlushState()
        func flush(to target: Int64) {
            idle.busy()
            let mark = hasher?.mark()
            flushing = Task.detached {
                defer { idle.done() }
                guard fdatasync(fd) == 0 else { throw BlobStoreError.io("fsync: \(String(cString: strerror(errno)))") }
                try await progress(target)
                if let mark { hashes.keep(upload, offset: target, hash: await mark.value()) }
            }
            flushed = target
        }
        do {
            for try await buffer in body {
                guard position + Int64(buffer.readableBytes) <= limit else {
                    try writeAll(fd, buffer, count: Int(limit - position), at: &position, hasher: hasher)
                    throw BlobStoreError.tooLong
                }
                try writeAll(fd, buffer, count: buffer.readableBytes, at: &position, hasher: hasher)
                if accept == nil, position - flushed >= Self.checkpoint, idle.isIdle {
                    try await flushing?.value
                    flush(to: position)
                }
                await hasher?.keepUp()
            }
        } catch {
            // Provisional bytes that did not all arrive are not the upload's.
            if accept != nil {
                ftruncate(fd, off_t(offset))
                throw error
            }
            // A dropped connection, or a stop that cancelled the request, keeps what
            // arrived: the client resumes from there. The record is made outside this
            // (perhaps cancelled) task so that cancellation cannot skip it.
            _ = await flushing?.result
            let whole = await hasher?.finish()
            if position != offset, fdatasync(fd) == 0 {
                let final = position
                _ = await Task {
                    try await progress(final)
                    if let whole { hashes.keep(upload, offset: final, hash: whole) }
                }.result
            }
            throw error
        }
        try await flushing?.value
        let whole = await hasher?.finish()
        if let accept {
            do {
                try await accept()
            } catch {
                ftruncate(fd, off_t(offset))
                throw error
            }
        }
        if position != flushed {
            guard fdatasync(fd) == 0 else { throw BlobStoreError.io("fsync: \(String(cString: strerror(errno)))") }
            try await progress(position)
            if let whole { hashes.keep(upload, offset: position, hash: whole) }
        }
        return position
    }

    /// Writes the first `count` bytes of `buffer` at `position`, handing exactly the bytes
    /// written to `hasher` (if any).
    private func writeAll(_ fd: Int32, _ buffer: ByteBuffer, count: Int, at position: inout Int64, hasher: BackgroundHasher?) throws {
        guard count > 0 else { return }
        var done = 0
        defer { if done > 0, let hasher { hasher.update(buffer.getSlice(at: buffer.readerIndex, length: done)!) } }
        try buffer.withUnsafeReadableBytes { raw in
            while done < count {
                let n = pwrite(fd, raw.baseAddress! + done, count - done, off_t(position))
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == ENOSPC || errno == EDQUOT { throw BlobStoreError.noSpace }
                    throw BlobStoreError.io("write: \(String(cString: strerror(errno)))")
                }
                done += n
                position += Int64(n)
            }
        }
    }

    /// The hash of the upload's first `length` bytes: the one kept while they were
    /// appended, continued with the bytes it lacks (read from `fd`), or all of them read.
    func hashed(_ upload: String, fd: Int32, to length: Int64) throws -> SHA256 {
        let kept = hashes.entry(upload, atMost: length)
        var hash = kept?.hash ?? SHA256()
        var position = kept?.offset ?? 0
        guard position < length else { return hash }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while position < length {
            let want = Int(min(Int64(buffer.count), length - position))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(position)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw BlobStoreError.io("upload \(upload) is shorter than recorded") }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            position += Int64(n)
        }
        return hash
    }

    public func digest(upload: String, length: Int64) throws -> String {
        let fd = open(uploadPath(upload), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStoreError.missing(upload) }
        defer { close(fd) }
        return Secrets.hex(try hashed(upload, fd: fd, to: length).finalize())
    }

    public func deleteUpload(_ id: String) {
        hashes.drop(id)
        unlink(uploadPath(id))
    }

    public func adopt(upload: String, as blob: String) throws {
        // A second name for the same file (no copy); the upload's own name goes only once
        // the blob's row committed.
        guard link(uploadPath(upload), blobPath(blob)) == 0 else {
            if errno == ENOENT { throw BlobStoreError.missing(upload) }
            throw BlobStoreError.io("cannot link upload \(upload) as blob: \(String(cString: strerror(errno)))")
        }
        // A fresh time keeps gc from taking it for an old orphan before its row commits.
        utimes(blobPath(blob), nil)
    }

    public func unadopt(blob: String, upload: String) { unlink(blobPath(blob)) }

    /// The blob leaves the blob folder at once (a rename) and its file is removed on a
    /// thread of its own: unlinking a large file frees all its cached pages, which took
    /// 0.3 s for 1 GiB, and the request that released it (an ack) need not wait for that.
    public func deleteBlob(_ id: String) {
        let trash = "\(trashFolder)/\(id).\(UInt64.random(in: 0...UInt64.max))"
        guard rename(blobPath(id), trash) == 0 else {
            unlink(blobPath(id))
            return
        }
        Thread.detachNewThread { unlink(trash) }
    }

    func blobExists(_ id: String) -> Bool { access(blobPath(id), F_OK) == 0 }

    public func existenceCheck() -> @Sendable (String) -> Bool {
        let store = self
        return { store.blobExists($0) }
    }

    public func blobs(olderThan date: Date) -> Set<String> { files(in: blobsFolder, olderThan: date) }
    public func uploads(olderThan date: Date) -> Set<String> { files(in: uploadsFolder, olderThan: date) }

    func files(in folder: String, olderThan date: Date) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var result = Set<String>()
        for name in names {
            var info = stat()
            guard stat("\(folder)/\(name)", &info) == 0 else { continue }
            if Double(info.st_mtim.tv_sec) < date.timeIntervalSince1970 { result.insert(name) }
        }
        return result
    }

    public func rewrite(blob source: String, replacing: Int64, with header: [UInt8], as blob: String) throws -> (size: Int64, sha256: String) {
        let input = open(blobPath(source), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw BlobStoreError.missing(source) }
        defer { close(input) }
        let temporary = blobPath(blob) + ".tmp"
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw BlobStoreError.io("cannot create blob file: \(String(cString: strerror(errno)))") }
        var done = false
        defer {
            close(output)
            if !done { unlink(temporary) }
        }
        var hash = SHA256()
        var size: Int64 = 0
        func put(_ bytes: UnsafeRawBufferPointer) throws {
            var written = 0
            while written < bytes.count {
                let n = pwrite(output, bytes.baseAddress! + written, bytes.count - written, off_t(size))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw BlobStoreError.io("write: \(String(cString: strerror(errno)))")
                }
                written += n
                size += Int64(n)
            }
            hash.update(bufferPointer: bytes)
        }
        try header.withUnsafeBytes { try put($0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = replacing
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, $0.count, off_t(position)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw BlobStoreError.io("read: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            position += Int64(n)
            try buffer.withUnsafeBytes { try put(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        guard fsync(output) == 0, rename(temporary, blobPath(blob)) == 0 else {
            throw BlobStoreError.io("cannot store blob file: \(String(cString: strerror(errno)))")
        }
        done = true
        return (size, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }

    public func read(blob: String, range: Range<Int64>, chunk: Int,
                     into write: (ByteBuffer) async throws -> Void) async throws {
        try await read(path: blobPath(blob), name: blob, range: range, chunk: chunk, into: write)
    }

    public func read(upload: String, range: Range<Int64>, chunk: Int,
                     into write: (ByteBuffer) async throws -> Void) async throws {
        try await read(path: uploadPath(upload), name: upload, range: range, chunk: chunk, into: write)
    }

    func read(path: String, name blob: String, range: Range<Int64>, chunk: Int,
              into write: (ByteBuffer) async throws -> Void) async throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStoreError.missing(blob) }
        defer { close(fd) }
        _ = posix_fadvise(fd, off_t(range.lowerBound), off_t(range.count), POSIX_FADV_SEQUENTIAL)
        var position = range.lowerBound
        var buffers = ReadBuffers(capacity: Int(min(Int64(chunk), max(range.upperBound - position, 0))))
        while position < range.upperBound {
            let want = Int(min(Int64(chunk), range.upperBound - position))
            let bytes = try buffers.fill { buffer in
                let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
                    max(pread(fd, raw.baseAddress!, want, off_t(position)), 0)
                }
                guard n > 0 else { throw BlobStoreError.io("blob \(blob) is shorter than recorded") }
            }
            position += Int64(bytes.readableBytes)
            try await write(bytes)
        }
    }
}

/// The few buffers a download reads its chunks into, each used again once the channel
/// wrote it out and let go of it. A buffer the channel still holds is never written
/// into (a chunk sent does not change): a new one is made instead, and kept while there
/// are fewer than `count`. (A fresh buffer per chunk cost the relay a third of its CPU
/// serving a blob: each chunk's pages were faulted in and zeroed anew.)
struct ReadBuffers {
    static let count = 4
    let capacity: Int
    private var pool: [ByteBuffer] = []
    private var next = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `read` on an empty buffer that nothing else holds, and returns it filled.
    mutating func fill(_ read: (inout ByteBuffer) throws -> Void) throws -> ByteBuffer {
        for step in 0..<pool.count {
            let index = (next + step) % pool.count
            let filled: ByteBuffer?? = try pool[index].modifyIfUniquelyOwned { buffer -> ByteBuffer? in
                buffer.clear()
                try read(&buffer)
                return buffer
            }
            if let filled, let filled {
                next = (index + 1) % pool.count
                return filled
            }
        }
        var buffer = ByteBufferAllocator().buffer(capacity: capacity)
        try read(&buffer)
        if pool.count < Self.count { pool.append(buffer) }
        return buffer
    }
}

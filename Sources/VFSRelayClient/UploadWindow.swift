import NIOCore
import VFSCore
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Bytes a writer produces while they go up in a tus upload, held in memory (chunks of
/// `chunkSize`) until the relay has them durably: the upload goes in PATCHes of at most
/// `segment` bytes, and the offset the relay answers to each (it syncs before it answers)
/// lets the window drop what came before. The writer waits while `capacity` bytes are
/// held (the upload is behind), unless the upload gave up (`abandon`): the writer then
/// takes everything held (`takeAll`) and writes the rest elsewhere (vfs-push: its spool file).
public final class UploadWindow: UploadSource, @unchecked Sendable {
    // Sendable: `state` is only touched under `condition`.
    struct State {
        /// Contiguous chunks, the first at `start`; all `chunkSize` long but the last.
        var chunks: [ByteBuffer] = []
        var start: Int64 = 0
        var written: Int64 = 0
        var length: Int64?
        var failure: (any Error)?
        var abandoned = false
        /// The upload's requests waiting for bytes past a position (`wait(beyond:)`).
        var waiters: [Waiter] = []
        var nextWaiter = 0
    }
    struct Waiter {
        let id: Int
        let position: Int64
        let continuation: CheckedContinuation<(written: Int64, length: Int64?), any Error>
    }
    /// Guards `state`; the writer sleeps on it while the window is full and is woken by
    /// the relay's confirmations (`acknowledge`) or `abandon`, and the upload's waiters
    /// are resumed by the writer's `append`, `finish` and `fail`. (Both sides polled
    /// before, every 0.5 and 1 ms: the push's wake-ups and context switches were 9% of its
    /// CPU, issue 46.)
    private let condition = PThreadCondition()
    private var state = State()
    public let capacity: Int64
    public let segment: Int64?
    public let chunkSize: Int

    /// The defaults: PATCHes of 16 MiB (each synced by the relay before it answers), and
    /// 8 MiB more that the writer seals while it waits for that answer. A larger window
    /// (32 or 48 MiB) pushed no faster (issue 26); each MiB of it is a MiB of vfs-push's RSS.
    public init(capacity: Int64 = 24 << 20, segment: Int64 = 16 << 20, chunkSize: Int = 1 << 20) {
        precondition(capacity >= segment + Int64(chunkSize), "the window holds at least a segment")
        self.capacity = capacity
        self.segment = segment
        self.chunkSize = chunkSize
    }

    private func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try condition.withLock { try body(&state) }
    }

    /// Takes out the waiters `ready` says can go on (under the lock), to be resumed outside it.
    private func takeWaiters(_ state: inout State, where ready: (Waiter) -> Bool) -> [Waiter] {
        guard !state.waiters.isEmpty else { return [] }
        let going = state.waiters.filter(ready)
        if !going.isEmpty { state.waiters.removeAll(where: ready) }
        return going
    }

    // MARK: the writer

    /// Adds the next chunk (`chunkSize` bytes, or fewer for the last), waiting while the
    /// window is full. False (the chunk not taken) once the upload gave up.
    public func append(_ chunk: ByteBuffer) -> Bool {
        var woken: [Waiter] = []
        var now: (written: Int64, length: Int64?) = (0, nil)
        let taken = condition.withLock { () -> Bool in
            while !state.abandoned && state.written - state.start >= capacity { condition.wait() }
            if state.abandoned { return false }
            state.chunks.append(chunk)
            state.written += Int64(chunk.readableBytes)
            now = (state.written, state.length)
            let written = state.written
            woken = takeWaiters(&state) { $0.position < written }
            return true
        }
        for waiter in woken { waiter.continuation.resume(returning: now) }
        return taken
    }

    /// The chunks held now, from the offset of the first (they stay held).
    public func held() -> (start: Int64, chunks: [ByteBuffer]) { withState { ($0.start, $0.chunks) } }

    /// Everything held, taken out (after `abandon`: the writer keeps it elsewhere).
    func takeAll() -> (start: Int64, chunks: [ByteBuffer]) {
        withState { state in
            defer {
                state.chunks.removeAll()
                state.start = state.written
            }
            return (state.start, state.chunks)
        }
    }

    /// The writer is done: `length` bytes.
    public func finish(length: Int64) {
        let (woken, written) = withState { state -> ([Waiter], Int64) in
            state.length = length
            return (takeWaiters(&state) { _ in true }, state.written)
        }
        for waiter in woken { waiter.continuation.resume(returning: (written, length)) }
    }

    /// The writer failed: the upload's next wait throws `error`.
    public func fail(_ error: any Error) {
        let (woken, failure) = withState { state -> ([Waiter], any Error) in
            state.failure = state.failure ?? error
            return (takeWaiters(&state) { _ in true }, state.failure!)
        }
        for waiter in woken { waiter.continuation.resume(throwing: failure) }
    }

    // MARK: the upload

    /// The upload stopped for good: the writer no longer waits for it.
    public func abandon() {
        condition.withLock {
            state.abandoned = true
            condition.broadcast()
        }
    }

    public var length: Int64? { withState { $0.length } }

    public var firstKept: Int64 { withState { $0.start } }

    public func acknowledge(_ offset: Int64) {
        condition.withLock {
            var dropped = 0
            var start = state.start
            for chunk in state.chunks {
                let end = start + Int64(chunk.readableBytes)
                guard end <= offset else { break }
                start = end
                dropped += 1
            }
            if dropped > 0 {
                state.chunks.removeFirst(dropped)
                state.start = start
                condition.broadcast()
            }
        }
    }

    /// Returns at once when there are bytes past `position`, the length is known or the
    /// writer failed; else once the writer gets there (a cancelled task: CancellationError).
    public func wait(beyond position: Int64) async throws -> (written: Int64, length: Int64?) {
        let id = withState { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<(written: Int64, length: Int64?), any Error>? = withState { state in
                    if let failure = state.failure { return .failure(failure) }
                    if state.written > position || state.length != nil { return .success((state.written, state.length)) }
                    // Cancelled before it was registered: the handler found nothing to resume.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, position: position, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = withState { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    public func cursor() throws -> any UploadCursor { WindowCursor(self) }

    /// Up to `count` bytes at `position`, a view of the chunk that holds it (no copy).
    func read(at position: Int64, count: Int) throws -> ByteBuffer {
        try withState { state in
            guard position >= state.start else {
                throw RelayClientError.badAnswer(url: "the upload", reason: "the relay went back to byte \(position), before \(state.start) it had confirmed")
            }
            guard position < state.written else {
                throw RelayClientError.badAnswer(url: "the upload", reason: "byte \(position) is not written yet")
            }
            let index = Int((position - state.start) / Int64(chunkSize))
            let within = Int((position - state.start) % Int64(chunkSize))
            let chunk = state.chunks[index]
            let length = min(count, chunk.readableBytes - within)
            return chunk.getSlice(at: chunk.readerIndex + within, length: length)!
        }
    }
}

final class WindowCursor: UploadCursor {
    let window: UploadWindow
    init(_ window: UploadWindow) { self.window = window }
    func read(at position: Int64, count: Int) throws -> ByteBuffer { try window.read(at: position, count: count) }
}

/// A spooled upload as its writer (vfs-push's sealer) makes it, in chunks handed to the
/// upload's window
/// (in memory until the relay has them). The spool file gets only what the relay may not
/// have when sealing ends (`complete`), or, once the upload gave up, everything the window
/// held and all that follows: a push killed after sealing, or whose upload failed,
/// resumes from the relay's offset.
public final class SpoolingWriter: ByteSink {
    public let fd: Int32
    public let path: String
    public let window: UploadWindow
    private var current: ByteBuffer
    private let allocator = ByteBufferAllocator()
    public private(set) var count: Int64 = 0
    /// Once the upload gave up: the first byte of the file (everything from there on
    /// goes to it, directly).
    private var spilledFrom: Int64?

    /// `fd`: the spool file, open for writing (the caller closes it).
    public init(fd: Int32, path: String, window: UploadWindow) {
        self.fd = fd
        self.path = path
        self.window = window
        current = allocator.buffer(capacity: window.chunkSize)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        while !rest.isEmpty {
            let n = min(rest.count, window.chunkSize - current.readableBytes)
            current.writeBytes(UnsafeRawBufferPointer(rebasing: rest.prefix(n)))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(n))
            count += Int64(n)
            if current.readableBytes == window.chunkSize { try hand() }
        }
    }

    /// The chunk being filled goes to the window (or, once spilled, to the file).
    private func hand() throws {
        guard current.readableBytes > 0 else { return }
        let chunk = current
        current = allocator.buffer(capacity: window.chunkSize)
        if spilledFrom != nil { return try put(chunk, at: count - Int64(chunk.readableBytes)) }
        if !window.append(chunk) {
            // What the relay confirmed before it gave up is not needed again.
            let (start, held) = window.takeAll()
            try put(held, from: start)
            spilledFrom = start
            try put(chunk, at: count - Int64(chunk.readableBytes))
        }
    }

    /// Sealing ended: the last chunk goes, and every byte the window still holds is
    /// written to the file at its offset. Returns the first byte the file holds.
    public func complete() throws -> Int64 {
        try hand()
        if let spilledFrom { return spilledFrom }
        let (start, held) = window.held()
        try put(held, from: start)
        return start
    }

    private func put(_ chunks: [ByteBuffer], from start: Int64) throws {
        var at = start
        for chunk in chunks {
            try put(chunk, at: at)
            at += Int64(chunk.readableBytes)
        }
    }

    private func put(_ chunk: ByteBuffer, at offset: Int64) throws {
        try chunk.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw IOError("cannot write", path: path) }
                done += n
            }
        }
    }
}

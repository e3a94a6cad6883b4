import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// A hand-off between two threads: the age decryptor writes plaintext while libarchive
/// pulls it (opening a bundle; sealing one needs none: libarchive writes into the
/// encryptor's batches, `AgeEncryptor.encrypt(to:to:armor:producer:)`).
///
/// Nothing is copied into the pipe: a write waits, its bytes in place, until the reader
/// has taken all of them, either copied out (`read(into:)`) or lent where they are
/// (`borrow()`, which libarchive's read callback uses: the decrypted batch is what it
/// reads, with no copy between). The writer's own buffers bound what is in flight (the
/// decryptor's batches). Either end can stop the other: a writer that fails passes its
/// error to the reader, a reader that stops makes the writer's current or next write
/// throw `BytePipe.Closed`.
final class BytePipe: @unchecked Sendable {
    // Sendable: every field below is read and written with `mutex` held.
    struct Closed: Error {}

    /// What the current write still holds for the reader; nil when no write waits.
    private var pending: UnsafeRawBufferPointer?
    /// The first bytes of `pending` that `borrow()` lent: taken once the reader comes back.
    private var lent = 0
    private var writerDone = false
    private var writerError: Error?
    private var readerDone = false
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// Hands `bytes` to the reader and returns once it took them all (and is done with
    /// any it borrowed); throws `Closed` if it stopped first.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        try locked {
            if readerDone { throw Closed() }
            pending = bytes
            pthread_cond_broadcast(&changed)
            while pending != nil && !readerDone { pthread_cond_wait(&changed, &mutex) }
            if pending != nil {
                pending = nil
                lent = 0
                throw Closed()
            }
        }
    }

    /// The writer is done: the reader sees the end of input, or `error`.
    func finishWriting(_ error: Error?) {
        locked {
            writerDone = true
            writerError = error
            pthread_cond_broadcast(&changed)
        }
    }

    /// The reader stops reading (and uses nothing it borrowed); the pending and later
    /// writes fail with `Closed`.
    func finishReading() {
        locked {
            readerDone = true
            pthread_cond_broadcast(&changed)
        }
    }

    /// Up to `count` of the writer's bytes, taken; empty at the end of input. Called
    /// with `mutex` held. What the last `borrow()` lent is taken first: the reader is
    /// back, so it is done with it.
    private func take(upTo count: Int) throws -> UnsafeRawBufferPointer {
        settleLent()
        while pending == nil && !writerDone {
            // Wake now and then: an extraction interrupted by a signal must get to
            // clean up even while its input is stalled.
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 100_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            pthread_cond_timedwait(&changed, &mutex, &deadline)
            try ExtractionInterrupt.checkPending()
        }
        guard let bytes = pending else {
            if let writerError { throw writerError }
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(rebasing: bytes[..<min(count, bytes.count)])
    }

    /// Marks `count` bytes of `pending` taken; the write returns once all are.
    private func consume(_ count: Int) {
        guard let bytes = pending else { return }
        if count == bytes.count {
            pending = nil
            pthread_cond_broadcast(&changed)
        } else {
            pending = UnsafeRawBufferPointer(rebasing: bytes[count...])
        }
    }

    private func settleLent() {
        guard lent > 0 else { return }
        let count = lent
        lent = 0
        consume(count)
    }

    /// Copies up to `out.count` bytes out; 0 at the end of input.
    func read(into out: UnsafeMutableRawBufferPointer) throws -> Int {
        guard out.count > 0 else { return 0 }
        return try locked {
            let bytes = try take(upTo: out.count)
            if bytes.count > 0 { out.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            consume(bytes.count)
            return bytes.count
        }
    }

    /// The writer's next bytes where they are, valid until the reader's next call on
    /// the pipe (the write they belong to waits until then); empty at the end of input.
    func borrow() throws -> UnsafeRawBufferPointer {
        try locked {
            let bytes = try take(upTo: .max)
            lent = bytes.count
            return bytes
        }
    }

    final class WriteEnd: ByteSink {
        let pipe: BytePipe
        init(_ pipe: BytePipe) { self.pipe = pipe }
        func write(_ bytes: UnsafeRawBufferPointer) throws { try pipe.write(bytes) }
    }

    final class ReadEnd: ByteSource {
        let pipe: BytePipe
        init(_ pipe: BytePipe) { self.pipe = pipe }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try pipe.read(into: buffer) }
        func borrow() throws -> UnsafeRawBufferPointer? { try pipe.borrow() }
    }

    /// Runs `producer` on a new thread and `consumer` on the calling thread. When the
    /// consumer returns, the producer is stopped; its own failure is thrown to the
    /// consumer's reads, so a consumer that reads to the end sees it.
    static func run<R>(producerOnThread producer: @escaping (ByteSink) throws -> Void, consumer: (ByteSource) throws -> R) throws -> R {
        let pipe = BytePipe()
        let job = HandOff(value: producer)
        let thread = JoinableThread {
            do { try job.value(WriteEnd(pipe)); pipe.finishWriting(nil) } catch { pipe.finishWriting(error) }
        }
        defer {
            pipe.finishReading()
            thread.join()
        }
        return try consumer(ReadEnd(pipe))
    }
}

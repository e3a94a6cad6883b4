import VFSCore
#if canImport(Glibc)
import Glibc
#endif

/// A bounded in-memory pipe between two threads: the age decryptor pushes bytes while
/// libarchive pulls them (opening a bundle; sealing one needs none: libarchive writes
/// into the encryptor's batches, `AgeEncryptor.encrypt(to:to:armor:producer:)`), with at most
/// `capacity` bytes in flight. Either end can stop the other: a writer that fails
/// passes its error to the reader, a reader that stops makes the writer's next
/// write throw `BytePipe.Closed`.
final class BytePipe: @unchecked Sendable {
    // Sendable: every field below is read and written with `mutex` held.
    struct Closed: Error {}

    private var chunks: [[UInt8]] = []
    private var head = 0
    private var offsetInHead = 0
    private var buffered = 0
    private var writerDone = false
    private var writerError: Error?
    private var readerDone = false
    private let capacity: Int
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()

    init(capacity: Int = 4 << 20) {
        self.capacity = capacity
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        for i in chunks.indices { chunks[i].withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let chunk = Array(bytes)
        try locked {
            while buffered >= capacity && !readerDone { pthread_cond_wait(&changed, &mutex) }
            if readerDone { throw Closed() }
            chunks.append(chunk)
            buffered += chunk.count
            pthread_cond_broadcast(&changed)
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

    /// The reader stops reading; pending and later writes fail with `Closed`.
    func finishReading() {
        locked {
            readerDone = true
            for i in head..<chunks.count { chunks[i].withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            chunks.removeAll()
            head = 0
            buffered = 0
            pthread_cond_broadcast(&changed)
        }
    }

    func read(into out: UnsafeMutableRawBufferPointer) throws -> Int {
        try locked {
            while head == chunks.count && !writerDone {
                // Wake now and then: an extraction interrupted by a signal must get to
                // clean up even while its input is stalled.
                var deadline = timespec()
                clock_gettime(CLOCK_REALTIME, &deadline)
                deadline.tv_nsec += 100_000_000
                if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
                pthread_cond_timedwait(&changed, &mutex, &deadline)
                try ExtractionInterrupt.checkPending()
            }
            if head == chunks.count {
                if let writerError { throw writerError }
                return 0
            }
            var copied = 0
            while copied < out.count && head < chunks.count {
                let n = min(out.count - copied, chunks[head].count - offsetInHead)
                chunks[head].withUnsafeMutableBytes { src in
                    (out.baseAddress! + copied).copyMemory(from: src.baseAddress! + offsetInHead, byteCount: n)
                    if offsetInHead + n == src.count { src.initializeMemory(as: UInt8.self, repeating: 0) }
                }
                copied += n
                offsetInHead += n
                if offsetInHead == chunks[head].count {
                    chunks[head] = []  // zeroed above; free it now
                    head += 1
                    offsetInHead = 0
                }
            }
            buffered -= copied
            if head > 64 && head * 2 > chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            pthread_cond_broadcast(&changed)
            return copied
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

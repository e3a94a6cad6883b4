#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The STREAM payload: 64 KiB chunks sealed with ChaCha20-Poly1305 under a nonce of an
/// 11-byte big-endian counter and a final-chunk flag.
///
/// Chunks are independent, so both directions run on a few worker threads that each do
/// a whole batch at a time: read it (reads are taken in turn, so batch n+1 is read
/// after batch n), seal or open its chunks, and write it when its turn comes (writes go
/// in batch order). No thread only reads or only writes, so there is no hand-off
/// between threads for each batch beyond two short locks, a batch is still in the
/// cache when it is sealed and written, and a worker blocked on a slow pipe leaves its
/// core to the others (or to the program at the other end of the pipe). Memory is
/// bounded by workers × batch size whatever the input size. On decryption a batch's
/// plaintext is written only up to the first chunk that fails to authenticate.
public enum PayloadStream {
    public static let chunkSize = 64 * 1024
    public static let sealedChunkSize = chunkSize + ChaChaPoly.tagCount
    public static let nonceCount = 16
    static let label = "payload"

    /// Chunks per batch: 16 × 64 KiB = 1 MiB, the size of an enlarged pipe.
    static let chunksPerBatch = 16

    static var workerCount: Int {
        max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 16))
    }

    static func payloadKey(fileKey: SecretBytes, nonce: [UInt8]) throws -> SecretBytes {
        try HKDF.deriveKey(inputKey: fileKey, salt: nonce, info: label)
    }

    static func chunkNonce(_ counter: UInt64, final: Bool) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: ChaChaPoly.nonceCount)
        for i in 0..<8 { nonce[10 - i] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * i)) }
        nonce[11] = final ? 1 : 0
        return nonce
    }

    /// Encrypts everything `source` yields to `sink` (after the caller wrote the header
    /// and nonce). `progress` gets the count of plaintext bytes read so far.
    static func encrypt(payloadKey: SecretBytes, from source: ByteSource, to sink: ByteSink,
                        progress: (@Sendable (Int) -> Void)? = nil, chunksPerBatch: Int = chunksPerBatch,
                        workers: Int = workerCount) throws {
        let pipeline = try Pipeline(key: payloadKey, encrypting: true, chunksPerBatch: chunksPerBatch, workers: workers)
        try pipeline.run(source: source, sink: sink, progress: progress)
    }

    /// Decrypts the payload after the nonce. Throws `AgeError.payload` at the first chunk
    /// that fails, after writing every chunk before it.
    static func decrypt(payloadKey: SecretBytes, from source: ByteSource, to sink: ByteSink,
                        progress: (@Sendable (Int) -> Void)? = nil, chunksPerBatch: Int = chunksPerBatch,
                        workers: Int = workerCount) throws {
        let pipeline = try Pipeline(key: payloadKey, encrypting: false, chunksPerBatch: chunksPerBatch, workers: workers)
        try pipeline.run(source: source, sink: sink, progress: progress)
    }
}

/// One batch of chunks moving through the pipeline.
private final class Batch: @unchecked Sendable {
    // Sendable: a batch is owned by one stage at a time, handed on through queues.
    let input: UnsafeMutableRawBufferPointer
    let output: UnsafeMutableRawBufferPointer
    var inputCount = 0
    var firstChunk: UInt64 = 0
    var chunkCount = 0
    /// True when the input ended inside this batch: its last chunk is the stream's last.
    var isLast = false
    /// Bytes of `output` to write, and the error to report after writing them.
    var outputCount = 0
    var error: Error?
    /// Per-chunk results filled in by the workers.
    var chunkOutputCount: [Int]
    var chunkFinal: [Bool]
    var chunkAuthentic: [Bool]

    init(inputCapacity: Int, outputCapacity: Int, chunks: Int) {
        input = .allocate(byteCount: inputCapacity, alignment: 64)
        output = .allocate(byteCount: outputCapacity, alignment: 64)
        chunkOutputCount = Array(repeating: 0, count: chunks)
        chunkFinal = Array(repeating: false, count: chunks)
        chunkAuthentic = Array(repeating: false, count: chunks)
    }

    deinit {
        // Plaintext may be in either buffer.
        input.initializeMemory(as: UInt8.self, repeating: 0)
        output.initializeMemory(as: UInt8.self, repeating: 0)
        input.deallocate()
        output.deallocate()
    }
}

private final class Pipeline: @unchecked Sendable {
    // Sendable: a batch is used by one worker at a time (taken from and returned to
    // `free`/`pending` under `writeLock`), each worker has its own cipher; the read state
    // (`carry`, `nextChunk`, `total`, `readEnded`, `nextReadTicket`) is touched only
    // under `readLock`, the writing state and `failure` only under `writeLock`; the
    // source is read by one worker at a time (under `readLock`) and the sink written by
    // one at a time (the one with `writing` set).
    let encrypting: Bool
    let inChunk: Int
    let outChunk: Int
    let chunksPerBatch: Int
    let workers: Int
    let key: SecretBytes

    private let readLock = Mutex()
    private var carry: UInt8? = nil
    private var nextChunk: UInt64 = 0
    private var total = 0
    private var readEnded = false
    private var nextReadTicket = 0

    // The batches: free ones, and processed ones waiting for their turn to be written
    // (by ticket). Whoever adds the batch whose turn it is writes it, and every batch
    // after it that is ready; the others go on with a free batch meanwhile, so a
    // worker preempted or a slow write does not hold every worker up.
    private var writeLock = pthread_mutex_t()
    private var batchFreed = pthread_cond_t()
    private var free: [Batch] = []
    private var pending: [Int: Batch] = [:]
    private var writing = false
    private var writeTurn = 0
    private var finished = false
    private var failure: Error?

    init(key: SecretBytes, encrypting: Bool, chunksPerBatch: Int, workers: Int) throws {
        self.key = key
        self.encrypting = encrypting
        self.chunksPerBatch = chunksPerBatch
        self.workers = max(1, workers)
        inChunk = encrypting ? PayloadStream.chunkSize : PayloadStream.sealedChunkSize
        outChunk = encrypting ? PayloadStream.sealedChunkSize : PayloadStream.chunkSize
        pthread_mutex_init(&writeLock, nil)
        pthread_cond_init(&batchFreed, nil)
        // Two batches a worker: one being processed, one waiting to be written.
        for _ in 0..<(2 * self.workers) {
            free.append(Batch(inputCapacity: chunksPerBatch * inChunk + 1, outputCapacity: chunksPerBatch * outChunk,
                              chunks: chunksPerBatch))
        }
    }

    deinit {
        pthread_cond_destroy(&batchFreed)
        pthread_mutex_destroy(&writeLock)
    }

    func run(source: ByteSource, sink: ByteSink, progress: (@Sendable (Int) -> Void)?) throws {
        source.prepareForStreaming()
        sink.prepareForStreaming()
        let sourceBox = HandOff(value: source), sinkBox = HandOff(value: sink)
        // Every worker has its own cipher context (it keeps the key schedule).
        var threads: [JoinableThread] = []
        var ciphers: [ChaChaPoly] = []
        for _ in 0..<workers { ciphers.append(try ChaChaPoly(key: key, encrypting: encrypting)) }
        let cipherBox = HandOff(value: ciphers)
        for index in 1..<workers {
            threads.append(JoinableThread { [self] in
                work(cipher: cipherBox.value[index], source: sourceBox.value, sink: sinkBox.value, progress: progress)
            })
        }
        work(cipher: ciphers[0], source: source, sink: sink, progress: progress)
        for thread in threads { thread.join() }
        if let failure = withWriteLock({ failure }) { throw failure }
    }

    private func withWriteLock<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(&writeLock)
        defer { pthread_mutex_unlock(&writeLock) }
        return body()
    }

    /// One worker: take a free batch, read it in turn, process it, hand it to the
    /// writing in order, until the input ends or something fails.
    private func work(cipher: ChaChaPoly, source: ByteSource, sink: ByteSink, progress: (@Sendable (Int) -> Void)?) {
        while let batch = takeFreeBatch() {
            guard let ticket = read(into: batch, from: source, progress: progress) else {
                withWriteLock { free.append(batch) }
                return
            }
            if batch.error == nil {
                for chunk in 0..<batch.chunkCount { processChunk(chunk, of: batch, cipher: cipher) }
                encrypting ? finishEncryptedBatch(batch) : finishDecryptedBatch(batch)
            }
            pthread_mutex_lock(&writeLock)
            pending[ticket] = batch
            if !writing && !finished {
                writing = true
                while !finished, let next = pending.removeValue(forKey: writeTurn) {
                    pthread_mutex_unlock(&writeLock)
                    let error = write(next, to: sink)
                    pthread_mutex_lock(&writeLock)
                    if let error, failure == nil { failure = error }
                    if error != nil || next.isLast { finished = true }
                    writeTurn += 1
                    free.append(next)
                    pthread_cond_broadcast(&batchFreed)
                }
                writing = false
            }
            let done = finished
            pthread_mutex_unlock(&writeLock)
            if done { return }
        }
    }

    /// A free batch; nil once the run has ended.
    private func takeFreeBatch() -> Batch? {
        pthread_mutex_lock(&writeLock)
        defer { pthread_mutex_unlock(&writeLock) }
        while free.isEmpty && !finished { pthread_cond_wait(&batchFreed, &writeLock) }
        return finished ? nil : free.removeLast()
    }

    /// Writes what `batch` may release; the error to report after it, if any.
    private func write(_ batch: Batch, to sink: ByteSink) -> Error? {
        var error = batch.error
        if error == nil || batch.outputCount > 0 {
            do {
                try sink.write(UnsafeRawBufferPointer(rebasing: batch.output[0..<batch.outputCount]))
            } catch let writeError {
                error = writeError
            }
        }
        return error
    }

    // MARK: reading

    /// Fills `batch` with the next batch of the input; returns its ticket (its place in
    /// the output order), or nil when the input has ended or the run failed.
    private func read(into batch: Batch, from source: ByteSource, progress: (@Sendable (Int) -> Void)?) -> Int? {
        readLock.withLock {
            guard !readEnded, !withWriteLock({ finished }) else { return nil }
            let ticket = nextReadTicket
            nextReadTicket += 1
            batch.error = nil
            batch.outputCount = 0
            let full = chunksPerBatch * inChunk
            var count = 0
            if let byte = carry { batch.input.storeBytes(of: byte, as: UInt8.self); count = 1; carry = nil }
            do {
                count += try source.readFully(into: UnsafeMutableRawBufferPointer(rebasing: batch.input[count...]))
            } catch {
                batch.error = error
                batch.isLast = true
                batch.chunkCount = 0
                readEnded = true
                return ticket
            }
            total += min(count, full)
            progress?(total)
            batch.firstChunk = nextChunk
            if count > full {
                carry = batch.input.load(fromByteOffset: full, as: UInt8.self)
                batch.inputCount = full
                batch.chunkCount = chunksPerBatch
                batch.isLast = false
            } else {
                batch.inputCount = count
                batch.chunkCount = count == 0 ? (encrypting && nextChunk == 0 ? 1 : 0) : (count + inChunk - 1) / inChunk
                batch.isLast = true
                readEnded = true
                if !encrypting && count == 0 {
                    batch.error = AgeError.payload(nextChunk == 0 ? "no chunks after the nonce" : "unexpected end of file")
                }
            }
            nextChunk += UInt64(batch.chunkCount)
            return ticket
        }
    }

    // MARK: chunks

    private func processChunk(_ index: Int, of batch: Batch, cipher: ChaChaPoly) {
        let start = index * inChunk
        let count = min(inChunk, batch.inputCount - start)
        let input = UnsafeRawBufferPointer(rebasing: batch.input[start..<(start + count)])
        let output = UnsafeMutableRawBufferPointer(rebasing: batch.output[(index * outChunk)...])
        let counter = batch.firstChunk + UInt64(index)
        let isLastChunk = batch.isLast && index == batch.chunkCount - 1
        do {
            if encrypting {
                try PayloadStream.chunkNonce(counter, final: isLastChunk).withUnsafeBytes { nonce in
                    try cipher.seal(nonce: nonce, plaintext: input, into: output)
                }
                batch.chunkOutputCount[index] = count + ChaChaPoly.tagCount
                batch.chunkAuthentic[index] = true
            } else {
                // A chunk at the end of the input should be final, any other should not;
                // a full-size chunk is also tried the other way, so the error can say
                // whether the end is missing or data follows the end.
                var final = isLastChunk
                var ok = try open(cipher, counter, final, input, output)
                if !ok && count == inChunk {
                    final.toggle()
                    ok = try open(cipher, counter, final, input, output)
                }
                batch.chunkAuthentic[index] = ok
                batch.chunkFinal[index] = final
                batch.chunkOutputCount[index] = ok ? count - ChaChaPoly.tagCount : 0
            }
        } catch {
            batch.chunkAuthentic[index] = false
            batch.chunkOutputCount[index] = 0
        }
    }

    private func open(_ cipher: ChaChaPoly, _ counter: UInt64, _ final: Bool,
                      _ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) throws -> Bool {
        try PayloadStream.chunkNonce(counter, final: final).withUnsafeBytes { nonce in
            try cipher.open(nonce: nonce, ciphertext: input, into: output)
        }
    }

    private func finishEncryptedBatch(_ batch: Batch) {
        // Sealed chunks are contiguous: every chunk but the stream's last is full.
        batch.outputCount = (0..<batch.chunkCount).reduce(0) { $0 + batch.chunkOutputCount[$1] }
    }

    /// Decides what a decrypted batch may release: chunks in order up to the first
    /// failure, and the error to report after them.
    private func finishDecryptedBatch(_ batch: Batch) {
        var released = 0
        for index in 0..<batch.chunkCount {
            let counter = batch.firstChunk + UInt64(index)
            let isLastChunk = batch.isLast && index == batch.chunkCount - 1
            guard batch.chunkAuthentic[index] else {
                let start = index * inChunk
                let count = min(inChunk, batch.inputCount - start)
                batch.error = AgeError.payload(count < ChaChaPoly.tagCount
                    ? "chunk \(counter) is truncated"
                    : "chunk \(counter) failed to authenticate")
                break
            }
            let plain = batch.chunkOutputCount[index]
            if batch.chunkFinal[index] && plain == 0 && counter != 0 {
                batch.error = AgeError.payload("last chunk is empty")
                break
            }
            // Plaintext is contiguous in `output` because only the last chunk is short.
            if released != index * outChunk {
                batch.output.baseAddress!.advanced(by: released)
                    .copyMemory(from: batch.output.baseAddress! + index * outChunk, byteCount: plain)
            }
            released += plain
            if batch.chunkFinal[index] && !isLastChunk {
                batch.error = AgeError.payload("trailing data after the final chunk")
                break
            }
            if !batch.chunkFinal[index] && isLastChunk {
                batch.error = AgeError.payload("unexpected end of file: the final chunk is missing")
                break
            }
        }
        batch.outputCount = released
        if batch.error != nil { batch.isLast = true }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The STREAM payload: 64 KiB chunks sealed with ChaCha20-Poly1305 under a nonce of an
/// 11-byte big-endian counter and a final-chunk flag.
///
/// Chunks are independent, so both directions run as a three-stage pipeline: a reader
/// thread fills batches, the calling thread seals or opens a batch's chunks on every
/// core, and a writer thread writes the batch out. A fixed pool of batches bounds memory
/// whatever the input size. On decryption a batch's plaintext is written only up to the
/// first chunk that fails to authenticate.
enum PayloadStream {
    public static let chunkSize = 64 * 1024
    public static let sealedChunkSize = chunkSize + ChaChaPoly.tagCount
    public static let nonceCount = 16

    /// The plaintext length of a payload of `length` bytes (nonce included): nil if no
    /// payload is that long (every payload has a nonce and at least one chunk).
    static func plaintextLength(payload length: Int64) -> Int64? {
        let sealed = length - Int64(nonceCount)
        let tag = Int64(sealedChunkSize - chunkSize)
        guard sealed >= tag else { return nil }
        let chunks = max(1, (sealed + Int64(sealedChunkSize) - 1) / Int64(sealedChunkSize))
        let plain = sealed - chunks * tag
        return plain >= 0 ? plain : nil
    }
    static let label = "payload"

    /// Chunks per batch and batches in flight: 3 × 32 × 64 KiB ≈ 6 MiB each way.
    static let chunksPerBatch = 32
    static let batchesInFlight = 3
    /// A regular file at least this large is mapped window by window (a batch each)
    /// instead of read, when its source allows it (`ByteSource.mappableRegion()`).
    static let mappingThreshold = 1 << 20

    static var workerCount: Int { ProcessorCount.available(limit: 16) }

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

    /// Encrypts what `producer` writes (after the caller wrote the header and nonce). The
    /// producer runs on the calling thread and its bytes are copied straight into the
    /// batches the workers seal: no pipe, and no reader thread, between them. A failure
    /// of the pipeline (the sink's) is thrown from the producer's next write; the
    /// producer's own failure is reported after the batches it filled before, as a read
    /// error is.
    static func encrypt(payloadKey: SecretBytes, to sink: ByteSink, chunksPerBatch: Int = chunksPerBatch,
                        workers: Int = workerCount, producer: (ByteSink) throws -> Void) throws {
        let pipeline = try Pipeline(key: payloadKey, encrypting: true, chunksPerBatch: chunksPerBatch, workers: workers)
        try pipeline.run(sink: sink, producer: producer)
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
    /// What the workers read: `input`, or the mapped window of the file.
    var view: UnsafeRawBufferPointer
    /// The mapped window `view` is in; released when the batch is refilled.
    var window: MappedWindow?
    var inputCount = 0
    var firstChunk: UInt64 = 0
    var chunkCount = 0
    /// True when the input ended inside this batch: its last chunk is the stream's last.
    var isLast = false
    /// Bytes of `output` to write, and the error to report after writing them.
    var outputCount = 0
    var error: Error?
    /// Per-chunk results filled in by the workers, each chunk's by one worker. Buffers, not
    /// arrays: writing an element of an array property is a modifying access of the whole
    /// property, and workers writing theirs at once raced on it (ThreadSanitizer, make
    /// sanitize-thread); a `let` buffer is only read, and each element has one writer.
    let chunkOutputCount: UnsafeMutableBufferPointer<Int>
    let chunkFinal: UnsafeMutableBufferPointer<Bool>
    let chunkAuthentic: UnsafeMutableBufferPointer<Bool>

    init(inputCapacity: Int, outputCapacity: Int, chunks: Int) {
        input = .allocate(byteCount: inputCapacity, alignment: 64)
        output = .allocate(byteCount: outputCapacity, alignment: 64)
        view = UnsafeRawBufferPointer(input)
        chunkOutputCount = .allocate(capacity: chunks)
        chunkOutputCount.initialize(repeating: 0)
        chunkFinal = .allocate(capacity: chunks)
        chunkFinal.initialize(repeating: false)
        chunkAuthentic = .allocate(capacity: chunks)
        chunkAuthentic.initialize(repeating: false)
    }

    /// Ready to be filled again: the previous window (if any) is unmapped.
    func reset() {
        window = nil
        view = UnsafeRawBufferPointer(input)
        error = nil
        outputCount = 0
    }

    deinit {
        // Plaintext may be in either buffer.
        input.initializeMemory(as: UInt8.self, repeating: 0)
        output.initializeMemory(as: UInt8.self, repeating: 0)
        input.deallocate()
        output.deallocate()
        chunkOutputCount.deallocate()
        chunkFinal.deallocate()
        chunkAuthentic.deallocate()
    }
}

private final class Pipeline: @unchecked Sendable {
    // Sendable: the ciphers are used by one worker each (index = worker), the batches
    // are handed between threads through queues, and `failure` guards itself.
    let encrypting: Bool
    let inChunk: Int
    let outChunk: Int
    let ciphers: [ChaChaPoly]
    let free = BlockingQueue<Batch>()
    let ready = BlockingQueue<Batch>()
    let done = BlockingQueue<Batch>()
    let failure = FirstError()

    let chunksPerBatch: Int

    init(key: SecretBytes, encrypting: Bool, chunksPerBatch: Int, workers: Int) throws {
        self.encrypting = encrypting
        self.chunksPerBatch = chunksPerBatch
        inChunk = encrypting ? PayloadStream.chunkSize : PayloadStream.sealedChunkSize
        outChunk = encrypting ? PayloadStream.sealedChunkSize : PayloadStream.chunkSize
        ciphers = try (0..<max(1, workers)).map { _ in try ChaChaPoly(key: key, encrypting: encrypting) }
        for _ in 0..<PayloadStream.batchesInFlight {
            free.put(Batch(inputCapacity: chunksPerBatch * inChunk + 1,
                           outputCapacity: chunksPerBatch * outChunk,
                           chunks: chunksPerBatch))
        }
    }

    func fail(_ error: Error) {
        failure.set(error)
        free.cancel(); ready.cancel(); done.cancel()
    }

    func run(source: ByteSource, sink: ByteSink, progress: (@Sendable (Int) -> Void)?) throws {
        // A pipe at either end holds 1 MiB instead of 64 KiB: the reader and writer
        // threads (and the programs at the other ends) wake up 16 times less often.
        source.prepareForStreaming()
        sink.prepareForStreaming()
        let sourceBox = HandOff(value: source), sinkBox = HandOff(value: sink)
        let reader = JoinableThread { [self] in read(from: sourceBox.value, progress: progress) }
        let writer = JoinableThread { [self] in write(to: sinkBox.value) }
        processReady()
        reader.join()
        writer.join()
        if let error = failure.get() { throw error }
    }

    /// Encrypting what `producer` writes on the calling thread (`BatchWriter`), while the
    /// batches are processed and written on threads of their own.
    func run(sink: ByteSink, producer: (ByteSink) throws -> Void) throws {
        sink.prepareForStreaming()
        let sinkBox = HandOff(value: sink)
        let writer = JoinableThread { [self] in write(to: sinkBox.value) }
        let workers = JoinableThread { [self] in processReady() }
        let input = BatchWriter(self)
        do {
            try producer(input)
            try input.end()
        } catch {
            input.end(failing: error)
        }
        workers.join()
        writer.join()
        if let error = failure.get() { throw error }
    }

    /// Processes the batches as they are ready, in order, until the last.
    private func processReady() {
        while let batch = ready.take() {
            if batch.error == nil { process(batch) }
            // Read before handing on: once put, the batch may come back refilled.
            let last = batch.isLast
            done.put(batch)
            if last { break }
        }
    }

    // MARK: reader

    private func read(from source: ByteSource, progress: (@Sendable (Int) -> Void)?) {
        if let region = source.mappableRegion(), region.count >= PayloadStream.mappingThreshold {
            return readMapped(region, progress: progress)
        }
        var carry: UInt8? = nil
        var nextChunk: UInt64 = 0
        var total = 0
        let full = chunksPerBatch * inChunk
        while let batch = free.take() {
            batch.reset()
            var count = 0
            if let byte = carry { batch.input.storeBytes(of: byte, as: UInt8.self); count = 1; carry = nil }
            do {
                count += try source.readFully(into: UnsafeMutableRawBufferPointer(rebasing: batch.input[count...]))
            } catch {
                return handOnFailure(batch, error)
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
                if !encrypting && count == 0 {
                    batch.error = AgeError.payload(nextChunk == 0 ? "no chunks after the nonce" : "unexpected end of file")
                }
            }
            nextChunk += UInt64(batch.chunkCount)
            let last = batch.isLast
            ready.put(batch)
            if last { return }
        }
    }

    /// Ends the input with `error`: the batch goes through the pipeline empty, and
    /// the writer reports the error after what came before.
    private func handOnFailure(_ batch: Batch, _ error: Error) {
        batch.error = error
        batch.isLast = true
        batch.chunkCount = 0
        ready.put(batch)
    }

    /// The reader for a mapped file: each batch is a window of the file, mapped when
    /// the batch is filled and unmapped when it comes back, so at most
    /// `batchesInFlight` windows (6 MiB) are mapped at once whatever the file size.
    private func readMapped(_ region: FileRegion, progress: (@Sendable (Int) -> Void)?) {
        var position = 0
        var nextChunk: UInt64 = 0
        let full = chunksPerBatch * inChunk
        while let batch = free.take() {
            batch.reset()
            let count = min(full, region.count - position)
            batch.firstChunk = nextChunk
            batch.inputCount = count
            batch.chunkCount = (count + inChunk - 1) / inChunk
            position += count
            batch.isLast = position == region.count
            do {
                let window = try MappedWindow(region, from: position - count, count: count)
                batch.window = window
                batch.view = window.bytes
                if batch.isLast { try MappedWindow.checkSize(of: region) }
            } catch {
                return handOnFailure(batch, error)
            }
            nextChunk += UInt64(batch.chunkCount)
            progress?(position)
            // Read before handing on: once put, the batch belongs to the workers.
            let last = batch.isLast, first = position == count
            ready.put(batch)
            if first { MappedWindow.testHookShrink(region, to: position) }
            if last { return }
        }
    }

    // MARK: workers

    private func process(_ batch: Batch) {
        let workers = min(ciphers.count, batch.chunkCount)
        if workers > 1 {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var chunk = worker
                while chunk < batch.chunkCount { processChunk(chunk, of: batch, cipher: ciphers[worker]); chunk += workers }
            }
        } else if workers == 1 {
            for chunk in 0..<batch.chunkCount { processChunk(chunk, of: batch, cipher: ciphers[0]) }
        }
        encrypting ? finishEncryptedBatch(batch) : finishDecryptedBatch(batch)
    }

    private func processChunk(_ index: Int, of batch: Batch, cipher: ChaChaPoly) {
        let start = index * inChunk
        let count = min(inChunk, batch.inputCount - start)
        let input = UnsafeRawBufferPointer(rebasing: batch.view[start..<(start + count)])
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

    // MARK: writer

    private func write(to sink: ByteSink) {
        while let batch = done.take() {
            do {
                try sink.write(UnsafeRawBufferPointer(rebasing: batch.output[0..<batch.outputCount]))
            } catch {
                fail(error)
                return
            }
            if let error = batch.error { fail(error); return }
            if batch.isLast { return }
            free.put(batch)
        }
    }
}

/// The producer's end of an encrypting pipeline (`Pipeline.run(sink:producer:)`): what it
/// writes is copied into the batch being filled. A full batch is handed on once more
/// bytes come, so the last batch is known to be the last (its last chunk is final).
private final class BatchWriter: ByteSink {
    let pipeline: Pipeline
    private var batch: Batch?
    private var nextChunk: UInt64 = 0
    private let full: Int

    init(_ pipeline: Pipeline) {
        self.pipeline = pipeline
        full = pipeline.chunksPerBatch * pipeline.inChunk
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        while !rest.isEmpty {
            let batch = try current()
            if batch.inputCount == full {
                hand(batch, last: false)
                continue
            }
            let n = min(rest.count, full - batch.inputCount)
            (batch.input.baseAddress! + batch.inputCount).copyMemory(from: rest.baseAddress!, byteCount: n)
            batch.inputCount += n
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(n))
        }
    }

    /// The batch being filled: a free one once the last was handed on (waiting for one);
    /// the pipeline's failure once it failed.
    private func current() throws -> Batch {
        if let batch { return batch }
        guard let free = pipeline.free.take() else { throw pipeline.failure.get() ?? AgeError.payload("the encryption stopped") }
        free.reset()
        free.inputCount = 0
        batch = free
        return free
    }

    /// The producer is done: the batch being filled is the last (with no bytes at all, one
    /// empty chunk).
    func end() throws {
        let batch = try current()
        hand(batch, last: true)
    }

    /// The producer failed: the payload ends with `error`, reported after the batches
    /// handed on before.
    func end(failing error: Error) {
        guard let batch = try? current() else { return pipeline.fail(error) }
        batch.error = error
        batch.isLast = true
        batch.chunkCount = 0
        self.batch = nil
        pipeline.ready.put(batch)
    }

    private func hand(_ batch: Batch, last: Bool) {
        batch.firstChunk = nextChunk
        if last {
            let count = batch.inputCount
            batch.chunkCount = count == 0 ? (nextChunk == 0 ? 1 : 0) : (count + pipeline.inChunk - 1) / pipeline.inChunk
        } else {
            batch.chunkCount = pipeline.chunksPerBatch
        }
        batch.isLast = last
        nextChunk += UInt64(batch.chunkCount)
        self.batch = nil
        pipeline.ready.put(batch)
    }
}

extension AgeDecryptor {
    /// The plaintext length of an age payload of `length` bytes (nonce included), nil if
    /// no payload is that long.
    public static func plaintextLength(payload length: Int64) -> Int64? { PayloadStream.plaintextLength(payload: length) }
}

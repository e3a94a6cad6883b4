#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import VFSCore

/// A sink that fails after `limit` bytes.
final class FailingSink: ByteSink {
    let limit: Int
    private(set) var written = 0
    init(limit: Int) { self.limit = limit }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard written + bytes.count <= limit else { throw IOError("cannot write", path: "test sink", code: ENOSPC) }
        written += bytes.count
    }
}

/// A source that fails after `limit` bytes.
final class FailingSource: ByteSource {
    let limit: Int
    private var offset = 0
    init(limit: Int) { self.limit = limit }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < limit else { throw IOError("cannot read", path: "test source", code: EIO) }
        let n = min(buffer.count, limit - offset)
        for i in 0..<n { buffer[i] = UInt8(truncatingIfNeeded: offset + i) }
        offset += n
        return n
    }
}

@Suite("payload workers and pipes")
struct StreamingTests {
    @Test("every worker count and batch size: chunks arrive in order, both directions",
          arguments: [1, 2, 3, 5], [1, 2, 16])
    func workersAndBatches(workers: Int, chunksPerBatch: Int) throws {
        let key = try SecureRandom.secret(32)
        for size in [0, 1, 65536, 65537, 7 * 65536, 23 * 65536 + 999] {
            let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ workers) }
            let sealed = MemorySink()
            try PayloadStream.encrypt(payloadKey: key, from: MemorySource(plain), to: sealed,
                                      chunksPerBatch: chunksPerBatch, workers: workers)
            #expect(sealed.bytes.count == max(1, (size + 65535) / 65536) * 16 + size)
            let opened = MemorySink()
            try PayloadStream.decrypt(payloadKey: key, from: MemorySource(sealed.bytes), to: opened,
                                      chunksPerBatch: 3 - chunksPerBatch % 3, workers: 6 - workers)
            #expect(opened.bytes == plain, "size \(size)")
        }
    }

    @Test("encrypting what a producer writes, in pieces of any size: the very payload a source of the same bytes gives, every worker count and batch size",
          arguments: [1, 2, 3], [1, 2, 16])
    func producer(workers: Int, chunksPerBatch: Int) throws {
        let key = try SecureRandom.secret(32)
        // Batches end at multiples of chunksPerBatch chunks: a payload that ends there too
        // has its final chunk in a full batch.
        for size in [0, 1, 65536, 65537, 2 * 65536, 7 * 65536, 16 * 65536, 23 * 65536 + 999] {
            let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ workers) }
            let pushed = MemorySink()
            try PayloadStream.encrypt(payloadKey: key, to: pushed, chunksPerBatch: chunksPerBatch, workers: workers) { sink in
                // Growing pieces, across chunk and batch boundaries.
                var at = 0, piece = 1
                while at < plain.count {
                    let n = min(piece, plain.count - at)
                    try plain[at..<(at + n)].withUnsafeBytes { try sink.write($0) }
                    at += n
                    piece = piece * 3 + 7
                }
            }
            let read = MemorySink()
            try PayloadStream.encrypt(payloadKey: key, from: MemorySource(plain), to: read, chunksPerBatch: chunksPerBatch, workers: workers)
            #expect(pushed.bytes == read.bytes, "size \(size)")
            let opened = MemorySink()
            try PayloadStream.decrypt(payloadKey: key, from: MemorySource(pushed.bytes), to: opened)
            #expect(opened.bytes == plain, "size \(size)")
        }
    }

    @Test("a producer's failure is reported after the batches it filled before; a write error is thrown to the producer's next write",
          arguments: [1, 2, 4])
    func producerFailures(workers: Int) throws {
        let key = try SecureRandom.secret(32)
        struct Boom: Error {}
        let sink = MemorySink()
        #expect(throws: Boom.self) {
            try PayloadStream.encrypt(payloadKey: key, to: sink, chunksPerBatch: 2, workers: workers) { out in
                try out.write([UInt8](repeating: 1, count: 6 * 65536 + 1))
                throw Boom()
            }
        }
        // Batches of two chunks: three whole batches came before the failure.
        #expect(sink.bytes.count == 6 * PayloadStream.sealedChunkSize)
        let failing = FailingSink(limit: 5 * PayloadStream.sealedChunkSize)
        #expect(throws: IOError.self) {
            try PayloadStream.encrypt(payloadKey: key, to: failing, chunksPerBatch: 1, workers: workers) { out in
                // Stopped only by the sink's failure, thrown here.
                while true { try out.write([UInt8](repeating: 1, count: 65536)) }
            }
        }
        #expect(failing.written == 5 * PayloadStream.sealedChunkSize)
    }

    @Test("a failing chunk with several workers: everything before it is released, nothing after", arguments: [1, 2, 4])
    func failureOrder(workers: Int) throws {
        let key = try SecureRandom.secret(32)
        let plain = [UInt8](repeating: 3, count: 40 * 65536)
        let sealed = MemorySink()
        try PayloadStream.encrypt(payloadKey: key, from: MemorySource(plain), to: sealed, chunksPerBatch: 2, workers: workers)
        var bytes = sealed.bytes
        bytes[21 * PayloadStream.sealedChunkSize + 9] ^= 1
        let opened = MemorySink()
        #expect(throws: AgeError.payload("chunk 21 failed to authenticate")) {
            try PayloadStream.decrypt(payloadKey: key, from: MemorySource(bytes), to: opened, chunksPerBatch: 2, workers: workers)
        }
        #expect(opened.bytes == Array(plain.prefix(21 * 65536)))
    }

    @Test("a write error stops every worker and is reported", arguments: [1, 2, 4])
    func writeError(workers: Int) throws {
        let key = try SecureRandom.secret(32)
        let sink = FailingSink(limit: 5 * PayloadStream.sealedChunkSize)
        #expect(throws: IOError.self) {
            try PayloadStream.encrypt(payloadKey: key, from: MemorySource([UInt8](repeating: 1, count: 50 * 65536)), to: sink,
                                      chunksPerBatch: 1, workers: workers)
        }
        #expect(sink.written == 5 * PayloadStream.sealedChunkSize)
    }

    @Test("a read error is reported after the batches read before it are written", arguments: [1, 2, 4])
    func readError(workers: Int) throws {
        let key = try SecureRandom.secret(32)
        let sink = MemorySink()
        #expect(throws: IOError.self) {
            try PayloadStream.encrypt(payloadKey: key, from: FailingSource(limit: 6 * 65536 + 1), to: sink,
                                      chunksPerBatch: 2, workers: workers)
        }
        // Batches of two chunks: three whole batches came before the read that failed.
        #expect(sink.bytes.count == 6 * PayloadStream.sealedChunkSize)
    }

    @Test("streaming enlarges a pipe at either end to the allowed maximum (1 MiB at most)")
    func pipeEnlarged() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(PipeBuffer.size(fds[0]) == 65536)
        let expected = min(1 << 20, PipeBuffer.maximum() ?? 65536)
        FileDescriptorSource(fd: fds[0], name: "pipe").prepareForStreaming()
        #expect(PipeBuffer.size(fds[0]) == expected)
        var more: [Int32] = [0, 0]
        #expect(pipe(&more) == 0)
        defer { close(more[0]); close(more[1]) }
        BufferedSource(FileDescriptorSource(fd: more[0], name: "pipe")).prepareForStreaming()
        #expect(PipeBuffer.size(more[1]) == expected, "through a buffered source too")
        var out: [Int32] = [0, 0]
        #expect(pipe(&out) == 0)
        defer { close(out[0]); close(out[1]) }
        FileDescriptorSink(fd: out[1], name: "pipe").prepareForStreaming()
        #expect(PipeBuffer.size(out[1]) == expected)
    }
}

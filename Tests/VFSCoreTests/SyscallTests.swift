import Glibc
import Testing
@testable import VFSCore

/// The one EINTR and short-transfer loop (System/Syscall.swift).
@Suite("system call loops")
struct SyscallTests {
    @Test("writeAll goes on after short writes and EINTR, in order")
    func writeAllShortAndInterrupted() throws {
        let input = Array(0..<200).map { UInt8($0) }
        var written: [UInt8] = []
        var calls = 0
        try input.withUnsafeBytes { bytes in
            try writeAll(bytes) { rest, count, done in
                calls += 1
                #expect(done == written.count)
                if calls % 3 == 0 { errno = EINTR; return -1 }
                let n = min(count, 7)
                written += UnsafeRawBufferPointer(start: rest, count: n)
                return n
            }
        }
        #expect(written == input)
        #expect(calls > 200 / 7)
    }

    @Test("writeAll throws the errno of a failed call, and ENOSPC for a call that writes nothing")
    func writeAllFailures() {
        let bytes: [UInt8] = [1, 2, 3]
        #expect(throws: SyscallError(code: EBADF)) {
            try bytes.withUnsafeBytes { buffer in try writeAll(buffer) { _, _, _ in errno = EBADF; return -1 } }
        }
        #expect(throws: SyscallError(code: ENOSPC)) {
            try bytes.withUnsafeBytes { buffer in try writeAll(buffer) { _, _, _ in 0 } }
        }
        #expect(throws: SyscallError(code: EBADF)) { try writeAll(fd: -1, bytes) }
    }

    @Test("readExactly fills the buffer over short reads and EINTR, and stops early at the end")
    func readExactlyShortAndEnd() throws {
        let source = Array(0..<50).map { UInt8($0) }
        var interrupted = false
        var buffer = [UInt8](repeating: 0, count: 80)
        let count = try buffer.withUnsafeMutableBytes { out in
            try readExactly(out) { rest, missing, done in
                if !interrupted { interrupted = true; errno = EINTR; return -1 }
                let n = min(missing, 6, source.count - done)
                source.withUnsafeBytes { rest.copyMemory(from: $0.baseAddress! + done, byteCount: n) }
                return n
            }
        }
        #expect(count == 50)
        #expect(Array(buffer[0..<50]) == source)
        #expect(throws: SyscallError(code: EIO)) {
            try buffer.withUnsafeMutableBytes { out in try readExactly(out) { _, _, _ in errno = EIO; return -1 } }
        }
    }

    @Test("writeAll(fd:) and readExactly(fd:) through a pipe")
    func throughPipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let message = Array("through the pipe".utf8)
        try writeAll(fd: ends[1], message)
        close(ends[1])
        var back = [UInt8](repeating: 0, count: 64)
        let count = try back.withUnsafeMutableBytes { try readExactly(fd: ends[0], $0) }
        #expect(Array(back[0..<count]) == message)
        #expect(retryingEINTR { Glibc.read(ends[0], &back, 1) } == 0)
    }

    @Test("malloc takes vfs-push's thresholds (MallocTuning, through CLinux); AddressSanitizer's allocator refuses them")
    func mallocThresholds() {
        // Under make sanitize-address, ASan's allocator replaces glibc's and its mallopt
        // takes nothing (returns 0): vfs-push then runs on ASan's defaults, which is only
        // slower. Elsewhere glibc must take both thresholds.
        let sanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        #expect(MallocTuning.keepFreed(mmapThreshold: 32 << 20, trimThreshold: 1 << 30) == !sanitized)
    }

    @Test("a source copied into a sink arrives whole, past the 1 MiB buffer")
    func sourceCopy() throws {
        let bytes = (0..<((1 << 20) + 4099)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sink = MemorySink()
        try MemorySource(bytes).copy(to: sink)
        #expect(sink.bytes == bytes)
    }
}

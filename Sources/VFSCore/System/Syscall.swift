import Glibc

// The one place system calls are retried after EINTR and looped over short reads and
// writes (swift-nio's `syscall` shape): callers keep their own error messages, and
// no loop here forgets EINTR or spins on a call that transfers nothing.

/// A system call that failed: its errno.
package struct SyscallError: Error, Equatable {
    package let code: Int32
    package init(code: Int32) { self.code = code }
}

/// Runs `call` (a system call that returns -1 and sets errno on failure) again for as
/// long as it is interrupted by a signal (EINTR); its result otherwise, errno intact.
@inline(__always)
package func retryingEINTR<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// Writes all of `bytes` to `fd` with write(2).
package func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SyscallError) {
    try writeAll(bytes) { rest, count, _ in Glibc.write(fd, rest, count) }
}

/// The same for an array (withUnsafeBytes would lose the error's type).
package func writeAll(fd: Int32, _ bytes: [UInt8]) throws(SyscallError) {
    var failure: SyscallError?
    bytes.withUnsafeBytes { buffer in
        do throws(SyscallError) { try writeAll(fd: fd, buffer) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// Writes all of `bytes` through `call` (write(2), send(2), pwrite(2)…), which is given
/// the rest of the bytes, how many they are, and how many are already written; short
/// writes go on, EINTR is retried. Throws the errno of a failed call, or ENOSPC when a
/// call writes nothing.
package func writeAll(_ bytes: UnsafeRawBufferPointer,
                      through call: (UnsafeRawPointer, Int, Int) -> Int) throws(SyscallError) {
    var done = 0
    while done < bytes.count {
        let n = retryingEINTR { call(bytes.baseAddress! + done, bytes.count - done, done) }
        if n < 0 { throw SyscallError(code: errno) }
        if n == 0 { throw SyscallError(code: ENOSPC) }
        done += n
    }
}

/// Fills `buffer` from `fd` with read(2); how many bytes it read, fewer than
/// `buffer.count` only at the end of the input.
package func readExactly(fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
    try readExactly(buffer) { rest, count, _ in Glibc.read(fd, rest, count) }
}

/// Fills `buffer` through `call` (read(2), recv(2), pread(2)…), which is given where the
/// rest goes, how many bytes are missing, and how many are already read; short reads go
/// on, EINTR is retried. Returns how many bytes were read: fewer than `buffer.count`
/// only when a call returned 0 (the end). Throws the errno of a failed call.
package func readExactly(_ buffer: UnsafeMutableRawBufferPointer,
                         through call: (UnsafeMutableRawPointer, Int, Int) -> Int) throws(SyscallError) -> Int {
    var done = 0
    while done < buffer.count {
        let n = retryingEINTR { call(buffer.baseAddress! + done, buffer.count - done, done) }
        if n < 0 { throw SyscallError(code: errno) }
        if n == 0 { break }
        done += n
    }
    return done
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import Testing
import VFSCore
import VFSRelayClient
import VFSRelayProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The writer's side of a windowed upload, on a thread of its own (as vfs-push seals):
/// `content` in uneven pieces, then `complete()`; returns the first byte the spool file holds.
private func writeOnThread(_ content: [UInt8], into box: UncheckedBox<SpoolingWriter>, window: UploadWindow) async throws -> Int64 {
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int64, Error>) in
        DetachedThread.start {
            do {
                var at = 0
                var piece = 1
                while at < content.count {
                    let n = min(piece, content.count - at)
                    try content[at..<at + n].withUnsafeBytes { try box.value.write($0) }
                    at += n
                    piece = piece * 7 % 10_007 + 1  // 1, 8, 57, 400, …: pieces of every size
                }
                let base = try box.value.complete()
                window.finish(length: box.value.count)
                continuation.resume(returning: base)
            } catch {
                window.fail(error)
                continuation.resume(throwing: error)
            }
        }
    }
}

private final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

private func spoolFile() throws -> (fd: Int32, path: String) {
    let path = "/tmp/vfs-window-test-\(UUID().uuidString)"
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw IOError("cannot create", path: path) }
    return (fd, path)
}

private func testContent(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

@Suite("tus uploads from memory: the sealed bytes go up while they are written, without a whole spool file")
struct UploadWindowTests {
    @Test("a window goes up in segments while it is written (chunked bodies, a busy PATCH retried); byte-identical; the spool file holds what was unconfirmed at the end")
    func segmentedUpload() async throws {
        let content = testContent(300_000, seed: 11)
        let server = try BusyTusServer(busy: 1, length: content.count)
        defer { server.stop() }
        let (fd, path) = try spoolFile()
        defer { close(fd); unlink(path) }
        // Less room than the content: the writer waits for the relay's confirmations.
        let window = UploadWindow(capacity: 40_000, segment: 30_000, chunkSize: 4096)
        let writer = UncheckedBox(SpoolingWriter(fd: fd, path: path, window: window))
        async let base = writeOnThread(content, into: writer, window: window)
        try await RelayClient.with(baseURL: "http://127.0.0.1:\(server.port)", token: "t") { client in
            let uploader = TusUploader(client: client, retries: 4, backoff: Backoff(base: 0.01, cap: 0.05))
            try await uploader.send(window, to: "/v1/uploads/u1")
        }
        let first = try await base
        #expect(server.bytes == content ? true : false, "\(server.bytes.count) of \(content.count) bytes arrived, or other bytes")
        let log = server.log
        // It starts with HEAD, and the busy PATCH (409) is followed by a HEAD that learns the
        // offset again. (A PATCH that fails before it reaches the server, as on a loaded
        // machine, is retried after a HEAD too, so the log may hold more HEADs first.)
        #expect(log.first == "HEAD", "\(log)")
        let busy = log.firstIndex(of: "PATCH 409")
        #expect(busy.map { log.count > $0 + 1 && log[$0 + 1] == "HEAD" } == true, "\(log)")
        // 300 000 bytes in segments of at most 30 000: at least ten PATCHes that landed.
        #expect(log.filter { $0 == "PATCH 204" }.count >= 10, "\(log)")
        #expect(writer.value.count == Int64(content.count))
        // What the relay had not confirmed when the writing ended is in the file, at its offset.
        #expect(first >= 0 && first < Int64(content.count))
        #expect(first > 0, "the window was smaller than the content: the first bytes were confirmed and dropped")
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file.count == content.count)
        #expect(Array(file[Int(first)...]) == Array(content[Int(first)...]))
    }

    @Test("the two sides wake each other: the upload's wait returns once the writer appends past it or finishes, throws the writer's failure, ends when its task is cancelled; a writer held by a full window goes on once the relay confirms bytes")
    func waitsAreWoken() async throws {
        let (fd, path) = try spoolFile()
        defer { close(fd); unlink(path) }
        let window = UploadWindow(capacity: 3000, segment: 2000, chunkSize: 1000)
        let writer = UncheckedBox(SpoolingWriter(fd: fd, path: path, window: window))
        let chunk = testContent(1000, seed: 13)
        // Waiting past what is written (nothing yet): woken by the writer's first chunk.
        let first = Task { try await window.wait(beyond: 0) }
        try chunk.withUnsafeBytes { try writer.value.write($0) }
        let woken = try await first.value
        #expect(woken.written == 1000 && woken.length == nil)
        // A wait that nothing answers ends when its task is cancelled.
        let cancelled = Task { try await window.wait(beyond: 1000) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // The window full (three chunks): a writer on its own thread waits for room, and
        // goes on once the relay confirmed the first chunk.
        try chunk.withUnsafeBytes { try writer.value.write($0) }
        try chunk.withUnsafeBytes { try writer.value.write($0) }
        #expect(window.held().chunks.count == 3)
        let fourth = Task {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                DetachedThread.start {
                    do {
                        try chunk.withUnsafeBytes { try writer.value.write($0) }
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        window.acknowledge(1000)
        try await fourth.value
        #expect(window.firstKept == 1000 && window.held().chunks.count == 3)
        // Waiting past the last byte: the length, once the writer finishes.
        let last = Task { try await window.wait(beyond: 4000) }
        window.finish(length: 4000)
        let end = try await last.value
        #expect(end.written == 4000 && end.length == 4000)
        // Another window whose writer fails: its waiting upload gets the writer's error.
        let failing = UploadWindow(capacity: 3000, segment: 2000, chunkSize: 1000)
        let waiting = Task { try await failing.wait(beyond: 0) }
        failing.fail(IOError("cannot read", path: "/the/input"))
        await #expect(throws: IOError.self) { try await waiting.value }
    }

    @Test("an upload that gave up lets the writer go on: everything the window held (from the first byte not confirmed) and all that follows is in the spool file")
    func abandonedUploadSpills() async throws {
        let content = testContent(200_000, seed: 12)
        let (fd, path) = try spoolFile()
        defer { close(fd); unlink(path) }
        let window = UploadWindow(capacity: 20_000, segment: 10_000, chunkSize: 1000)
        let writer = UncheckedBox(SpoolingWriter(fd: fd, path: path, window: window))
        async let base = writeOnThread(content, into: writer, window: window)
        // Nothing is confirmed: the writer fills the window and waits there…
        func held() -> Int { window.held().chunks.reduce(0) { $0 + $1.readableBytes } }
        // (A bound on the wait, not a timing: a writer that never filled it fails below.)
        for _ in 0..<12_000 where held() < 20_000 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(held() == 20_000, "the writer stops at the window's capacity")
        // The relay confirmed 5 500 bytes: the chunks before 5 000 go (5 000…6 000 is still needed).
        window.acknowledge(5500)
        #expect(window.firstKept == 5000)
        // …then the upload gives up.
        window.abandon()
        #expect(try await base == 5000)
        #expect(window.length == Int64(content.count))
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file.count == content.count)
        #expect(Array(file[5000...]) == Array(content[5000...]))
    }

    @Test("a failed writer fails the upload that waits for it; nothing more is sent")
    func writerFailure() async throws {
        let server = try BusyTusServer(busy: 0, length: 10_000)
        defer { server.stop() }
        let window = UploadWindow(capacity: 8192, segment: 4096, chunkSize: 1024)
        struct Broken: Error {}
        let (fd, path) = try spoolFile()
        defer { close(fd); unlink(path) }
        let writer = SpoolingWriter(fd: fd, path: path, window: window)
        try testContent(1000, seed: 3).withUnsafeBytes { try writer.write($0) }
        Task {
            try await Task.sleep(for: .milliseconds(100))
            window.fail(Broken())
        }
        // (The stream's failure reaches the caller through the HTTP client, as a dropped request.)
        await #expect(throws: (any Error).self) {
            try await RelayClient.with(baseURL: "http://127.0.0.1:\(server.port)", token: "t") { client in
                try await TusUploader(client: client, retries: 1, backoff: Backoff(base: 0.01, cap: 0.02)).send(window, to: "/v1/uploads/u1")
            }
        }
        #expect(server.bytes.isEmpty)
    }

    @Test("a spool file that holds only its bundle's tail resumes from the relay's offset past it; an offset before it is refused, no zeros sent")
    func sparseSpoolResumes() async throws {
        let content = testContent(100_000, seed: 13)
        let (fd, path) = try spoolFile()
        defer { close(fd); unlink(path) }
        // The tail from byte 60 000 only, at its offset (a hole before it).
        let base = 60_000
        let written = content[base...].withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(base)) }
        #expect(written == content.count - base)

        let ahead = try BusyTusServer(busy: 0, length: content.count, holding: Array(content.prefix(70_000)))
        defer { ahead.stop() }
        try await RelayClient.with(baseURL: "http://127.0.0.1:\(ahead.port)", token: "t") { client in
            try await TusUploader(client: client).send(file: path, length: Int64(content.count), base: Int64(base), to: "/v1/uploads/u1")
        }
        #expect(ahead.bytes == content ? true : false)

        let behind = try BusyTusServer(busy: 0, length: content.count, holding: Array(content.prefix(50_000)))
        defer { behind.stop() }
        let error = await #expect(throws: RelayClientError.self) {
            try await RelayClient.with(baseURL: "http://127.0.0.1:\(behind.port)", token: "t") { client in
                try await TusUploader(client: client).send(file: path, length: Int64(content.count), base: Int64(base), to: "/v1/uploads/u1")
            }
        }
        guard case .badAnswer(_, let reason)? = error else {
            Issue.record("not a bad answer: \(String(describing: error))")
            return
        }
        #expect(reason.contains("before 60000"))
        #expect(behind.log == ["HEAD"], "no PATCH: no byte of the hole was sent")
        #expect(behind.bytes == Array(content.prefix(50_000)))
    }
}

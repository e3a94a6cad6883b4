import Foundation
import Testing
import VFSCore
import VFSTestSupport
import VFSRelayProtocol
@testable import VFSRelayClient

/// The feed reads a partial file while a download fills it, hashing what it reads: the
/// bytes read must be the file's, in order, also when the file held a prefix from a
/// killed fetch (the resume), and the end comes only once they hash right.
@Suite("download feed")
struct DownloadFeedTests {
    static let size = (24 << 20) + 4321

    @Test("a feed read while the file fills gives its bytes (fresh, or after a killed fetch's prefix); the end only once they hash right",
          arguments: [0, (12 << 20) + 99])
    func readsWhileFilled(prefix: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.age"
        let content = Array(testBytes(Self.size))
        // A killed fetch left `prefix` bytes.
        if prefix > 0 { try Data(content[..<prefix]).write(to: URL(fileURLWithPath: path)) }
        let feed = try DownloadFeed(path: path, target: target(content))
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        feed.advance(to: Int64(prefix))

        let thread = Thread {
            var position = prefix
            while position < content.count {
                let piece = min(200_000, content.count - position)
                _ = content[position..<(position + piece)].withUnsafeBytes { pwrite(writer, $0.baseAddress!, piece, off_t(position)) }
                position += piece
                feed.advance(to: Int64(position))
            }
        }
        thread.start()
        var read = [UInt8]()
        read.reserveCapacity(content.count)
        var buffer = [UInt8](repeating: 0, count: 300_000)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try feed.read(into: $0) }
            if n == 0 { break }
            read += buffer[0..<n]
        }
        #expect(read.count == content.count)
        #expect(read == content)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == content)
        feed.abandon()
    }

    @Test("a file that does not hash to the transfer's SHA-256: the last read fails, the partial file is removed")
    func wrongDigest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.age"
        var content = Array(testBytes(Self.size))
        let expected = target(content)
        content[content.count - 1] ^= 1
        try Data(content).write(to: URL(fileURLWithPath: path))
        let feed = try DownloadFeed(path: path, target: expected)
        feed.advance(to: Int64(content.count))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        #expect(throws: RelayClientError.self) {
            while true {
                let n = try buffer.withUnsafeMutableBytes { try feed.read(into: $0) }
                if n == 0 { break }
                total += n
            }
        }
        #expect(total == content.count)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("checked on failure (vfs-fetch, whose reader authenticates every byte): the end comes without the SHA-256; a reader that failed after the end has the file hashed, and one that does not match is the feed's error and removed")
    func checkedOnFailure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let right = Array(testBytes(Self.size))
        var wrong = right
        wrong[wrong.count - 1] ^= 1
        /// Reads `content` (listed with the SHA-256 of `right`) through a feed, `upTo` bytes or to the end.
        func feed(_ content: [UInt8], upTo limit: Int = .max) throws -> (DownloadFeed, String, Int) {
            let path = folder + "/\(UUID().uuidString).age"
            try Data(content).write(to: URL(fileURLWithPath: path))
            let feed = try DownloadFeed(path: path, target: target(right), digest: .onFailure)
            feed.advance(to: Int64(content.count))
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var total = 0
            while total < limit {
                let n = try buffer.withUnsafeMutableBytes { try feed.read(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(limit - total))) }
                if n == 0 { break }
                total += n
            }
            return (feed, path, total)
        }
        // The whole read, the end of input given: no error, though it does not hash right.
        let (corrupt, corruptPath, read) = try feed(wrong)
        #expect(read == wrong.count)
        #expect(corrupt.error == nil)
        corrupt.readerFailed()
        guard case .corruptDownload(transfer: "t", expected: _, actual: _)? = corrupt.error as? RelayClientError else {
            Issue.record("not a corrupt download: \(String(describing: corrupt.error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: corruptPath))
        // A reader that failed with the whole hashing right: its own error stands.
        let (sound, soundPath, _) = try feed(right)
        sound.readerFailed()
        #expect(sound.error == nil)
        #expect(FileManager.default.fileExists(atPath: soundPath))
        // A reader that failed before the end: nothing hashed, nothing removed.
        let (early, earlyPath, partway) = try feed(wrong, upTo: 3 << 20)
        #expect(partway == 3 << 20)
        early.readerFailed()
        #expect(early.error == nil)
        #expect(FileManager.default.fileExists(atPath: earlyPath))
    }

    @Test("a read waits for a batch of bytes (or as many as it asks for, or the rest), not for each chunk written, and a failure ends its wait")
    func readsInBatches() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.age"
        let content = Array(testBytes((3 << 20) + 4321))
        let batch = Int(DownloadFeed.readBatch)
        let feed = try DownloadFeed(path: path, target: target(content))
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        @Sendable func write(upTo end: Int, from start: Int) {
            _ = content[start..<end].withUnsafeBytes { pwrite(writer, $0.baseAddress!, end - start, off_t(start)) }
            feed.advance(to: Int64(end))
        }
        // A chunk is there when the reading starts; the rest comes chunk by chunk.
        write(upTo: 65536, from: 0)
        let thread = Thread {
            for start in stride(from: 65536, to: content.count, by: 65536) { write(upTo: min(content.count, start + 65536), from: start) }
        }
        thread.start()
        var buffer = [UInt8](repeating: 0, count: 2 << 20)
        var read = [UInt8]()
        let first = try buffer.withUnsafeMutableBytes { try feed.read(into: $0) }
        #expect(first >= batch)
        read += buffer[0..<first]
        // Asking for less than a batch: what was asked for.
        let small = try buffer.withUnsafeMutableBytes { try feed.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<100])) }
        #expect(small == 100)
        read += buffer[0..<small]
        while true {
            let n = try buffer.withUnsafeMutableBytes { try feed.read(into: $0) }
            if n == 0 { break }
            read += buffer[0..<n]
        }
        #expect(read == content)

        // A reader waiting for its batch gets the download's failure.
        let stalled = try DownloadFeed(path: folder + "/u.age", target: target(content))
        stalled.advance(to: 1000)
        struct Cut: Error {}
        let failer = Thread { stalled.fail(Cut()) }
        failer.start()
        #expect(throws: Cut.self) { _ = try buffer.withUnsafeMutableBytes { try stalled.read(into: $0) } }
    }

    private func target(_ content: [UInt8]) -> RangeDownloader.Target {
        let hash = SHA256()
        content.withUnsafeBytes { hash.update($0) }
        return RangeDownloader.Target(route: "/x", label: "t", size: Int64(content.count), sha256: hash.finalize().hexString)
    }
}

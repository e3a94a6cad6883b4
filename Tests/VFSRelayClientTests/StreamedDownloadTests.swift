import Foundation
import Testing
import VFSCore
import VFSTestSupport
import VFSRelayProtocol
@testable import VFSRelayClient

/// vfs-fetch and vfs-cloud get read a download while it arrives (`StreamedDownload`):
/// the reader gets the file's bytes, a failed download is what is reported (the
/// reader's stop is only its consequence), and a reader's own failure comes back to
/// the caller (vfs-cloud get then removes the partial file).
@Suite("streamed download")
struct StreamedDownloadTests {
    static let size = (3 << 20) + 777

    @Test("the reader gets every byte the download writes, as it writes them")
    func readsWhatArrives() async throws {
        let (folder, path, content) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let feed = try DownloadFeed(path: path, target: Self.target(content))
        let read = try await StreamedDownload.run(feed, read: { source in try Self.readAll(source) }) {
            try Self.write(content, to: path, feed: feed, upTo: content.count)
        }
        #expect(try read.get() == content)
    }

    @Test("a download that fails part way is thrown, not the reader's stop it caused")
    func downloadErrorWins() async throws {
        let (folder, path, content) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let feed = try DownloadFeed(path: path, target: Self.target(content))
        let lost = RelayClientError.unreachable(url: "http://127.0.0.1:1", reason: "connection reset")
        await #expect(throws: lost) {
            _ = try await StreamedDownload.run(feed, read: { source in try Self.readAll(source) }) {
                try Self.write(content, to: path, feed: feed, upTo: content.count / 2)
                throw lost
            }
        }
    }

    @Test("a reader that fails on its own: its error is the result, the download having ended")
    func readerErrorIsTheResult() async throws {
        let (folder, path, content) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let feed = try DownloadFeed(path: path, target: Self.target(content))
        let read = try await StreamedDownload.run(feed, read: { source -> Int in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            throw AgeError.noMatch("no identity of this device")
        }) {
            try Self.write(content, to: path, feed: feed, upTo: content.count)
        }
        #expect(throws: AgeError.self) { try read.get() }
        #expect(feed.error == nil)
    }

    @Test("a feed checked on failure (vfs-fetch's): a reader that read to the end and failed gets the download's SHA-256 mismatch thrown, the partial file removed; a reader that succeeds gets its result, the relay's SHA-256 not hashed")
    func checkedOnFailure() async throws {
        let (folder, path, content) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var wrong = content
        wrong[wrong.count / 2] ^= 1
        let failing = try DownloadFeed(path: path, target: Self.target(content), digest: .onFailure)
        await #expect(throws: RelayClientError.self) {
            _ = try await StreamedDownload.run(failing, read: { source -> Int in
                _ = try Self.readAll(source)
                throw AgeError.payload("chunk 24 failed to authenticate")
            }) {
                try Self.write(wrong, to: path, feed: failing, upTo: wrong.count)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))

        // The reader authenticated what it read: its result, whatever the relay listed.
        let other = folder + "/u.age"
        let listedWrong = try DownloadFeed(path: other, target: Self.target(content), digest: .onFailure)
        let read = try await StreamedDownload.run(listedWrong, read: { source in try Self.readAll(source) }) {
            try Self.write(wrong, to: other, feed: listedWrong, upTo: wrong.count)
        }
        #expect(try read.get() == wrong)
        #expect(listedWrong.error == nil)
    }

    static func setUp() throws -> (folder: String, path: String, content: [UInt8]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-streamed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (folder, folder + "/t.age", Array(testBytes(size)))
    }

    /// The download: `content` up to `count` into the partial file, a piece at a time.
    static func write(_ content: [UInt8], to path: String, feed: DownloadFeed, upTo count: Int) throws {
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        guard writer >= 0 else { throw IOError("cannot open", path: path) }
        defer { close(writer) }
        var position = 0
        while position < count {
            let piece = min(100_000, count - position)
            _ = content[position..<(position + piece)].withUnsafeBytes { pwrite(writer, $0.baseAddress!, piece, off_t(position)) }
            position += piece
            feed.advance(to: Int64(position))
        }
    }

    static func readAll(_ source: ByteSource) throws -> [UInt8] {
        var read = [UInt8](), buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return read }
            read += buffer[0..<n]
        }
    }

    static func target(_ content: [UInt8]) -> RangeDownloader.Target {
        let hash = SHA256()
        content.withUnsafeBytes { hash.update($0) }
        return RangeDownloader.Target(route: "/x", label: "t", size: Int64(content.count), sha256: hash.finalize().hexString)
    }
}

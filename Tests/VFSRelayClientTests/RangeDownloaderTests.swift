import Foundation
import Testing
import VFSCore
import VFSTestSupport
@testable import VFSRelayClient

/// Where a download's body goes in its partial file (`RangeDownloader.start`): a 206 after
/// the bytes it holds, the whole content from 0 with the old bytes dropped, and a fresh,
/// empty file left untouched (ext4 flushes a file truncated to zero when it is closed).
@Suite("range downloader: the partial file")
struct RangeDownloaderTests {
    /// A partial file holding `count` bytes, with its modification time set to 2001 (a
    /// truncation, even to the same size, sets it to now).
    static func partialFile(in folder: TestFolder, holding count: Int) throws -> (path: String, fd: Int32) {
        let path = folder.url.appendingPathComponent("t.age").path
        try Data(repeating: 0x61, count: count).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 978_307_200)], ofItemAtPath: path)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError("cannot open", path: path) }
        return (path, fd)
    }

    static func state(_ path: String) throws -> (size: Int, modified: TimeInterval) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.size] as! NSNumber).intValue, (attributes[.modificationDate] as! Date).timeIntervalSince1970)
    }

    @Test("a fresh download (an empty partial file, the whole content) starts at 0 without truncating the file")
    func freshDownloadIsNotTruncated() throws {
        let folder = try TestFolder()
        let (path, fd) = try Self.partialFile(in: folder, holding: 0)
        defer { close(fd) }
        #expect(try RangeDownloader.start(fd, holding: 0, partialContent: false, path: path) == 0)
        let after = try Self.state(path)
        #expect(after.size == 0)
        #expect(after.modified == 978_307_200, "the empty file was truncated")
    }

    @Test("the whole content after a partial file: its old bytes are dropped and the body starts at 0")
    func wholeContentDropsOldBytes() throws {
        let folder = try TestFolder()
        let (path, fd) = try Self.partialFile(in: folder, holding: 4096)
        defer { close(fd) }
        #expect(try RangeDownloader.start(fd, holding: 4096, partialContent: false, path: path) == 0)
        #expect(try Self.state(path).size == 0)
    }

    @Test("a 206 goes on after the bytes the partial file holds, which stay")
    func partialContentAppends() throws {
        let folder = try TestFolder()
        let (path, fd) = try Self.partialFile(in: folder, holding: 4096)
        defer { close(fd) }
        #expect(try RangeDownloader.start(fd, holding: 4096, partialContent: true, path: path) == 4096)
        let after = try Self.state(path)
        #expect(after.size == 4096)
        #expect(after.modified == 978_307_200)
    }
}

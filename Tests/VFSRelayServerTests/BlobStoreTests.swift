import Foundation
import Testing
@testable import VFSRelayServer

/// The blob files' steps in the order that survives a kill (issue 25, defect 6).
@Suite("blob store: adopting an upload")
struct BlobStoreTests {
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vfs-blobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("adopt gives the upload's file a second name: until the upload is deleted (after the commit) both exist, so a kill in between leaves a whole upload to retry")
    func adoptKeepsTheUpload() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try FileBlobStore(root: folder)
        try blobs.createUpload("u1")
        try Data("sealed bytes".utf8).write(to: URL(fileURLWithPath: blobs.uploadPath("u1")))
        try blobs.adopt(upload: "u1", as: "b1")
        #expect(FileManager.default.contents(atPath: blobs.uploadPath("u1")) == Data("sealed bytes".utf8), "the upload stays until its row is consumed")
        #expect(FileManager.default.contents(atPath: blobs.blobPath("b1")) == Data("sealed bytes".utf8))
        // The database refused: the blob name goes, the upload is as it was.
        blobs.unadopt(blob: "b1", upload: "u1")
        #expect(!blobs.blobExists("b1"))
        #expect(FileManager.default.contents(atPath: blobs.uploadPath("u1")) == Data("sealed bytes".utf8))
        // A retry (as after a kill) adopts it again; the commit is followed by the upload's deletion.
        try blobs.adopt(upload: "u1", as: "b2")
        blobs.deleteUpload("u1")
        #expect(FileManager.default.contents(atPath: blobs.blobPath("b2")) == Data("sealed bytes".utf8))
        #expect(!FileManager.default.fileExists(atPath: blobs.uploadPath("u1")))
        #expect(throws: BlobStoreError.self) { try blobs.adopt(upload: "u1", as: "b3") }
    }

    @Test("a ballast is real blocks, made only with room, given up once, and `freeing` retries a change that failed for a full disk")
    func ballast() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ballast = Ballast(folder: folder, size: 1 << 20)
        ballast.ensure(room: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: ballast.path), "no room: no ballast")
        ballast.ensure(room: 1 << 30)
        var info = stat()
        #expect(stat(ballast.path, &info) == 0)
        #expect(info.st_size == 1 << 20)
        #expect(Int64(info.st_blocks) * 512 >= 1 << 20, "allocated, not a hole")
        var attempts = 0
        let value = try await ballast.freeing { () async throws -> Int in
            attempts += 1
            if attempts == 1 { throw BlobStoreError.noSpace }
            return 7
        }
        #expect(value == 7 && attempts == 2)
        #expect(!FileManager.default.fileExists(atPath: ballast.path))
        // Without a ballast to give, the failure stands.
        await #expect(throws: BlobStoreError.self) { try await ballast.freeing { () async throws -> Int in throw BlobStoreError.noSpace } }
    }
}

import Crypto
import Foundation
import NIOCore
import NIOConcurrencyHelpers
import Testing
@testable import VFSRelayServer

/// The upload's SHA-256 taken as its bytes are written (issue 26): the digest of a whole
/// upload reads nothing again when this store wrote it, reads only the bytes it lacks
/// otherwise, and is never the digest of other bytes than the file's.
@Suite("blob store: the upload's hash, taken while appending")
struct UploadHashTests {
    /// The offsets an upload's PATCHes recorded (the database's column), with a switch
    /// that makes the next records fail (a database gone).
    final class Records: Sendable {
        private let state = NIOLockedValueBox((offset: Int64(0), failing: false))
        var offset: Int64 { state.withLockedValue { $0.offset } }
        func fail(_ failing: Bool) { state.withLockedValue { $0.failing = failing } }
        func record(_ offset: Int64) throws {
            try state.withLockedValue {
                guard !$0.failing else { throw BlobStoreError.unavailable("the database is gone") }
                $0.offset = offset
            }
        }
    }

    struct Dropped: Error {}

    /// `bytes` in pieces of `piece` bytes, then (with `failure`) an error, as a connection that drops.
    static func body(_ bytes: ArraySlice<UInt8>, piece: Int = 100_003, failure: (any Error)? = nil) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = min(start + piece, bytes.endIndex)
                continuation.yield(ByteBuffer(bytes: bytes[start..<end]))
                start = end
            }
            continuation.finish(throwing: failure)
        }
    }

    /// Bytes that differ at every offset (so a hash of the wrong ones never matches).
    static func content(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 9) &+ Int(seed) &* 77) }
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String { Secrets.hex(SHA256.hash(data: Array(bytes))) }

    /// One PATCH: `bytes` written at `offset` as the relay's controller does it.
    @discardableResult
    static func patch(_ blobs: FileBlobStore, _ records: Records, _ bytes: ArraySlice<UInt8>, at offset: Int64, limit: Int64 = .max,
                      failure: (any Error)? = nil) async throws -> Int64 {
        try await blobs.append(body(bytes, failure: failure), upload: "u1", offset: offset, limit: limit) { try records.record($0) }
    }

    /// Overwrites the upload file's first `count` bytes with zeros: a digest that reads
    /// them again no longer matches the bytes that were appended.
    static func scribble(_ blobs: FileBlobStore, _ count: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: blobs.uploadPath("u1")))
        defer { try? handle.close() }
        try handle.write(contentsOf: [UInt8](repeating: 0, count: count))
    }

    static func fileDigest(_ blobs: FileBlobStore) throws -> String {
        sha256(try Data(contentsOf: URL(fileURLWithPath: blobs.uploadPath("u1"))))
    }

    struct Refused: Error {}

    @Test("provisional bytes (tus checksum): nothing recorded mid-body; refused, cut or past the limit, the upload stays at its offset and the file is cut back; accepted, recorded once, digest right")
    func provisional() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try FileBlobStore(root: folder)
        let records = Records()
        try blobs.createUpload("u1")
        let data = Self.content(Int(FileBlobStore.checkpoint) * 2 + 777)
        let first = Int(FileBlobStore.checkpoint) + 5
        try await Self.patch(blobs, records, data[..<first], at: 0)
        let recorded = NIOLockedValueBox([Int64]())
        func append(_ bytes: ArraySlice<UInt8>, limit: Int64 = .max, failure: (any Error)? = nil,
                    accept: @escaping @Sendable () async throws -> Void) async throws -> Int64 {
            try await blobs.append(Self.body(bytes, failure: failure), upload: "u1", offset: Int64(first), limit: limit, accept: accept) { offset in
                recorded.withLockedValue { $0.append(offset) }
                try records.record(offset)
            }
        }
        let fileSize = { (try FileManager.default.attributesOfItem(atPath: blobs.uploadPath("u1"))[.size] as? Int) ?? -1 }
        // Refused after the whole body (more than a checkpoint's worth) arrived.
        await #expect(throws: Refused.self) { _ = try await append(data[first...]) { throw Refused() } }
        // Cut short: accept is never asked.
        await #expect(throws: Dropped.self) { _ = try await append(data[first...], failure: Dropped()) { Issue.record("asked to accept a cut body") } }
        // Past the limit.
        await #expect(throws: BlobStoreError.self) { _ = try await append(data[first...], limit: Int64(first + 10)) {} }
        #expect(recorded.withLockedValue { $0 }.isEmpty && records.offset == Int64(first))
        #expect(try fileSize() == first)
        // Accepted: recorded once, at the end.
        let end = try await append(data[first...]) {}
        #expect(end == Int64(data.count) && recorded.withLockedValue { $0 } == [Int64(data.count)] && records.offset == end)
        #expect(try blobs.digest(upload: "u1", length: end) == Self.sha256(data))
        #expect(try Self.fileDigest(blobs) == Self.sha256(data))
    }

    @Test("PATCHes in turn (past several checkpoints): the digest is the file's, from the hash kept while writing, not read again")
    func hashedWhileAppending() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try FileBlobStore(root: folder)
        let records = Records()
        try blobs.createUpload("u1")
        let data = Self.content(Int(FileBlobStore.checkpoint) * 2 + 12_345)
        let cuts = [0, 1, 70_000, Int(FileBlobStore.checkpoint) + 5, data.count]
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            #expect(try await Self.patch(blobs, records, data[start..<end], at: Int64(start)) == Int64(end))
            #expect(records.offset == Int64(end))
        }
        let whole = Self.sha256(data)
        #expect(try Self.fileDigest(blobs) == whole)
        #expect(try blobs.digest(upload: "u1", length: Int64(data.count)) == whole)
        // Not read again: the file's bytes changed under it, the digest is still the appended bytes'.
        try Self.scribble(blobs, 4096)
        #expect(try blobs.digest(upload: "u1", length: Int64(data.count)) == whole)
        // Asked for fewer bytes than it hashed, it reads them (never a hash of more bytes).
        #expect(try blobs.digest(upload: "u1", length: 10_000) == Self.sha256([UInt8](repeating: 0, count: 4096) + data[4096..<10_000]))
        blobs.deleteUpload("u1")
        #expect(blobs.hashes.count == 0, "the upload's hash goes with it")
    }

    @Test("after a restart (no hash kept) a PATCH reads the bytes before its offset once, and the digest is right")
    func afterRestart() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = Records()
        let data = Self.content(3_000_000, seed: 1)
        let before = try FileBlobStore(root: folder)
        try before.createUpload("u1")
        try await Self.patch(before, records, data[0..<1_000_000], at: 0)
        // A new process on the same folder: nothing kept.
        let after = try FileBlobStore(root: folder)
        #expect(after.hashes.count == 0)
        try await Self.patch(after, records, data[1_000_000...], at: 1_000_000)
        #expect(try after.digest(upload: "u1", length: Int64(data.count)) == Self.sha256(data))
        // The digest of a store that never appended reads the whole file.
        #expect(try FileBlobStore(root: folder).digest(upload: "u1", length: Int64(data.count)) == Self.sha256(data))
    }

    @Test("another instance wrote the middle: this one reads only the bytes it lacks, from its kept hash on")
    func anotherInstanceWroteTheMiddle() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = Records()
        let data = Self.content(2_000_000, seed: 2)
        let one = try FileBlobStore(root: folder), two = try FileBlobStore(root: folder)
        try one.createUpload("u1")
        try await Self.patch(one, records, data[0..<500_000], at: 0)
        try await Self.patch(two, records, data[500_000..<1_200_000], at: 500_000)
        // The bytes below one's kept offset are not read again (changed here to show it).
        try Self.scribble(one, 400_000)
        try await Self.patch(one, records, data[1_200_000...], at: 1_200_000)
        #expect(try one.digest(upload: "u1", length: Int64(data.count)) == Self.sha256(data))
    }

    @Test("the hash taken beside the writes: each mark is the hash of exactly the bytes handed over before it, in order, continuing the start; keepUp leaves at most 32 MiB waiting; finish is the whole")
    func backgroundHasher() async throws {
        let data = Self.content(45 << 20, seed: 6)
        var start = SHA256()
        start.update(data: data[0..<1000])
        let hasher = BackgroundHasher(continuing: start)
        var marks: [(end: Int, mark: BackgroundHasher.Mark)] = []
        var position = 1000
        // Pieces of uneven sizes (a ByteBuffer slice each, as a PATCH's writes hand over).
        for size in [1, 65_536, 3, 1 << 20, 777_777, 2 << 20] {
            let buffer = ByteBuffer(bytes: data[position..<(position + size)])
            hasher.update(buffer.getSlice(at: 0, length: size)!)
            position += size
            marks.append((position, hasher.mark()))
        }
        for (end, mark) in marks {
            #expect(Secrets.hex(await mark.value().finalize()) == Self.sha256(data[0..<end]), "the mark at \(end)")
        }
        // A writer faster than the hash: 40 MiB handed over at once, then keepUp.
        while position + (1 << 20) <= data.count - 12_345 {
            hasher.update(ByteBuffer(bytes: data[position..<(position + (1 << 20))]))
            position += 1 << 20
        }
        await hasher.keepUp()
        #expect(hasher.pending <= BackgroundHasher.maximumLag)
        hasher.update(ByteBuffer(bytes: data[position...]))
        #expect(Secrets.hex(await hasher.finish().finalize()) == Self.sha256(data))
    }

    @Test("a pair of instances: the hashes one kept of uploads the other finished and deleted are forgotten once it holds the threshold's worth; a live upload's stays and its digest is still not read again")
    func pairForgetsUploadsTheOtherDeleted() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = try FileBlobStore(root: folder), two = try FileBlobStore(root: folder, hashesPruneAt: 4)
        let data = Self.content(300_000, seed: 5)
        // Two takes the first PATCH of each upload; one takes the rest and deletes them
        // (its own entries go with deleteUpload; two's stay, as no one tells it).
        for index in 0..<3 {
            let id = "done\(index)"
            try one.createUpload(id)
            try await two.append(Self.body(data[0..<100_000]), upload: id, offset: 0, limit: .max) { _ in }
            try await one.append(Self.body(data[100_000...]), upload: id, offset: 100_000, limit: .max) { _ in }
            one.deleteUpload(id)
        }
        #expect(two.hashes.count == 3, "below the threshold nothing is checked")
        try one.createUpload("live")
        try await two.append(Self.body(data[0..<200_000]), upload: "live", offset: 0, limit: .max) { _ in }
        #expect(two.hashes.count == 4)
        // The next PATCH on two finds 4 entries: the 3 gone uploads are forgotten.
        try await two.append(Self.body(data[200_000...]), upload: "live", offset: 200_000, limit: .max) { _ in }
        #expect(two.hashes.count == 1)
        #expect(two.hashes.entry("live", atMost: Int64(data.count))?.offset == Int64(data.count))
        for index in 0..<3 { #expect(two.hashes.entry("done\(index)", atMost: .max) == nil) }
        // The live upload's digest still comes from the kept hash (its bytes changed on disk).
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: two.uploadPath("live")))
        try handle.write(contentsOf: [UInt8](repeating: 0, count: 4096))
        try handle.close()
        #expect(try two.digest(upload: "live", length: Int64(data.count)) == Self.sha256(data))
    }

    @Test("a PATCH whose connection drops midway keeps the hash of exactly the bytes recorded; the resumed upload's digest is right without a second read")
    func droppedMidway() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try FileBlobStore(root: folder)
        let records = Records()
        try blobs.createUpload("u1")
        let data = Self.content(Int(FileBlobStore.checkpoint) + 3_000_000, seed: 3)
        let cut = Int(FileBlobStore.checkpoint) + 1_234_567
        await #expect(throws: Dropped.self) { try await Self.patch(blobs, records, data[0..<cut], at: 0, failure: Dropped()) }
        #expect(records.offset == Int64(cut), "what arrived is kept and recorded")
        try await Self.patch(blobs, records, data[cut...], at: Int64(cut))
        try Self.scribble(blobs, 4096)
        #expect(try blobs.digest(upload: "u1", length: Int64(data.count)) == Self.sha256(data))
    }

    @Test("a body past the limit: the hash holds exactly the bytes written up to it")
    func pastTheLimit() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try FileBlobStore(root: folder)
        let records = Records()
        try blobs.createUpload("u1")
        let data = Self.content(1_000_000, seed: 4)
        await #expect(throws: BlobStoreError.self) { try await Self.patch(blobs, records, data[...], at: 0, limit: 654_321) }
        #expect(records.offset == 654_321)
        try Self.scribble(blobs, 4096)
        #expect(try blobs.digest(upload: "u1", length: 654_321) == Self.sha256(data[0..<654_321]))
    }

    @Test("bytes written but never recorded (the database failed) are not in a kept hash: another instance may write other bytes there")
    func unrecordedBytesAreNotKept() async throws {
        let folder = try BlobStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = Records()
        let data = Self.content(3_000_000, seed: 5)
        let other = Self.content(3_000_000, seed: 6)
        let one = try FileBlobStore(root: folder), two = try FileBlobStore(root: folder)
        try one.createUpload("u1")
        try await Self.patch(one, records, data[0..<1_000_000], at: 0)
        // one writes up to 2 000 000, but its record fails: the offset stays at 1 000 000.
        records.fail(true)
        await #expect(throws: BlobStoreError.self) { try await Self.patch(one, records, data[1_000_000..<2_000_000], at: 1_000_000) }
        records.fail(false)
        #expect(records.offset == 1_000_000)
        // two takes the next PATCH at the recorded offset, with other bytes, and records 2 000 000.
        try await Self.patch(two, records, other[1_000_000..<2_000_000], at: 1_000_000)
        // one ends the upload: its digest is of the file (two's bytes in the middle), not of what one wrote there.
        try await Self.patch(one, records, data[2_000_000...], at: 2_000_000)
        let file = Array(data[0..<1_000_000]) + other[1_000_000..<2_000_000] + data[2_000_000...]
        #expect(try Self.fileDigest(one) == Self.sha256(file))
        #expect(try one.digest(upload: "u1", length: 3_000_000) == Self.sha256(file))
    }

    @Test("serving reads into a few buffers used again once released; a buffer still held is never written into")
    func readBuffers() throws {
        var buffers = ReadBuffers(capacity: 8)
        func fill(_ byte: UInt8) throws -> ByteBuffer { try buffers.fill { $0.writeBytes([UInt8](repeating: byte, count: 8)) } }
        func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? { buffer.withUnsafeReadableBytes { $0.baseAddress } }
        var held = try fill(1)
        let first = address(held)
        // Still held (a write the channel has not done yet): the next chunk goes elsewhere.
        let second = try fill(2)
        #expect(address(second) != first)
        #expect(Array(held.readableBytesView) == [UInt8](repeating: 1, count: 8), "a chunk sent does not change")
        held = second
        // Released, the first buffer is used again (its pages stay in place).
        var seen = Set<UnsafeRawPointer?>()
        for byte in UInt8(3)...20 {
            let chunk = try fill(byte)
            #expect(Array(chunk.readableBytesView) == [UInt8](repeating: byte, count: 8))
            seen.insert(address(chunk))
        }
        #expect(seen.contains(first), "a released buffer is used again")
        #expect(seen.count <= ReadBuffers.count)
        #expect(Array(held.readableBytesView) == [UInt8](repeating: 2, count: 8))
    }
}

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test("httpDate writes RFC 9110's IMF-fixdate, as DateFormatter's en_US_POSIX pattern does")
    func imfFixdate() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(httpDate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for seconds in stride(from: 0.0, to: 4_102_444_800, by: 3_600 * 24 * 17 + 3_661.5) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(httpDate(date) == formatter.string(from: date))
            // Read back by the relay's own parser (UploadIdleExpiryTests reads Upload-Expires with it).
            #expect(parseHTTPDate(httpDate(date)) == Date(timeIntervalSince1970: seconds.rounded(.down)))
        }
        #expect(parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        for bad in ["Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
                    "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", ""] {
            #expect(parseHTTPDate(bad) == nil, "\(bad)")
        }
    }
}

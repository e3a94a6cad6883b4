import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("transfers")
struct TransferTests {
    func references(_ fixture: RelayFixture) async throws -> [Int64] {
        try await fixture.store.referenceAudit().map(\.refs)
    }

    @Test("one blob, a row per target device (devices and groups merged), a transfer event each; ack and decline release")
    func fanOut() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let tablet = try await client.device(of: "alice@acme.example", name: "tablet")
            _ = try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                         json: #"{"name":"mobile","members":["\#(phone.id)","\#(tablet.id)"]}"#)
            let content = randomBytes(70_000)
            let upload = try await client.upload(content, token: laptop.token)
            let created = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                   json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"],"groups":["mobile"]}"#)
            #expect(created.status == .created)
            let transfer = try decode(OutboxEntry.self, created)
            #expect(Set(transfer.recipients.map(\.device)) == [phone.id, tablet.id])
            #expect(transfer.sha256 == sha256Hex(content))
            #expect(transfer.size == 70_000)
            #expect(transfer.expires.timeIntervalSince(transfer.created) > 6.9 * 86400)
            #expect(try await references(fixture) == [2])
            #expect(fixture.blobFiles().count == 1)
            #expect(fixture.uploadFiles().isEmpty)
            // The upload is used up.
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#).status == .notFound)

            let inbox = try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token))
            #expect(inbox.map(\.id) == [transfer.id])
            #expect(inbox.first?.sender == laptop.id)
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: laptop.token)).isEmpty)

            let full = try await client.request(.get, RelayPaths.transferContent(transfer.id), token: phone.token)
            #expect(full.status == .ok)
            #expect(bodyBytes(full) == content)
            #expect(full.headers[.eTag] == "\"\(transfer.sha256)\"")
            #expect(full.headers[.acceptRanges] == "bytes")
            // The sender's device is not a recipient.
            #expect(try await client.request(.get, RelayPaths.transferContent(transfer.id), token: laptop.token).status == .notFound)

            let outbox = try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token))
            #expect(outbox.first?.recipients.first { $0.device == phone.id }?.status == .initiated)
            #expect(outbox.first?.recipients.first { $0.device == tablet.id }?.status == .unattended)

            #expect(try await client.request(.post, RelayPaths.transferAck(transfer.id), token: phone.token).status == .noContent)
            #expect(try await references(fixture) == [1])
            #expect(try await client.request(.post, RelayPaths.transferAck(transfer.id), token: phone.token).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.transferContent(transfer.id), token: phone.token).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.transferDecline(transfer.id), token: tablet.token).status == .noContent)
            #expect(try await references(fixture).isEmpty)
            #expect(fixture.blobFiles().isEmpty)
            let after = try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token))
            #expect(Set(after.first?.recipients.map(\.status) ?? []) == [.delivered, .declined])
        }
        let events = try await fixture.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events WHERE kind = 'transfer'") }
        #expect(events == 2)
    }

    @Test("Range: 206 with Content-Range, suffix and open ranges, 416 past the end, another unit ignored, If-Range with a stale ETag sends all")
    func ranges() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let content = randomBytes(200_000)
            let upload = try await client.upload(content, token: laptop.token)
            let transfer = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                                                json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#))
            let uri = RelayPaths.transferContent(transfer.id)
            let cases: [(String, Range<Int>)] = [("bytes=0-99", 0..<100), ("bytes=150000-", 150_000..<200_000),
                                                 ("bytes=-10", 199_990..<200_000), ("bytes=199999-300000", 199_999..<200_000)]
            for (header, range) in cases {
                let response = try await client.request(.get, uri, token: phone.token, headers: [.range: header])
                #expect(response.status == .partialContent, "\(header)")
                #expect(bodyBytes(response) == Array(content[range]), "\(header)")
                #expect(response.headers[.contentRange] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/200000")
            }
            for header in ["bytes=200000-", "bytes=5-2"] {
                let response = try await client.request(.get, uri, token: phone.token, headers: [.range: header])
                #expect(response.status == .rangeNotSatisfiable, "\(header)")
                #expect(response.headers[.contentRange] == "bytes */200000")
                #expect(errorCode(response) == "range_not_satisfiable")
            }
            // Another unit MUST be ignored (RFC 9110 §14.2): the whole content.
            let other = try await client.request(.get, uri, token: phone.token, headers: [.range: "items=0-1"])
            #expect(other.status == .ok && bodyBytes(other).count == 200_000 && other.headers[.contentRange] == nil)
            let stale = try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=0-9", .ifRange: "\"old\""])
            #expect(stale.status == .ok)
            #expect(bodyBytes(stale).count == 200_000)
            let fresh = try await client.request(.get, uri, token: phone.token,
                                                 headers: [.range: "bytes=0-9", .ifRange: "\"\(transfer.sha256)\""])
            #expect(fresh.status == .partialContent)
        }
    }

    @Test("an upload that deferred its SHA-256 (issue 46): not hashed as it arrived; listed without it to a client that does without it; an old client's listing (no VFS-SHA256) gets it worked out and kept; its old flow (If-Range with the listed SHA-256) resumes; the ETag is the blob's id until then and still validates")
    func deferredDigest() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let tablet = try await client.device(of: "alice@acme.example", name: "tablet")
            let optional: HTTPFields = [HTTPField.Name(DeferredDigest.header)!: DeferredDigest.optional]
            let content = randomBytes(300_000), sha256 = sha256Hex(content)
            // An upload without the metadata is hashed as it arrives (its hash kept); one with it is not.
            let hashed = try await client.upload(randomBytes(1000), token: laptop.token)
            #expect(fixture.blobs.hashes.entry(hashed, atMost: .max)?.offset == 1000)
            let upload = try await client.upload(content, token: laptop.token, metadata: "name bmFtZQ==," + DeferredDigest.metadata)
            #expect(fixture.blobs.hashes.entry(upload, atMost: .max) == nil)
            let made = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                                            json: #"{"upload":"\#(upload)","devices":["\#(phone.id)","\#(tablet.id)"]}"#))
            #expect(made.sha256 == "" && made.size == 300_000)
            try made.checkAnswer()
            let listed = try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token, headers: optional))
            #expect(listed.map(\.sha256) == [""])
            try listed.checkAnswer()
            // Before the digest: the ETag is the blob's id, and a resume against it is 206.
            let uri = RelayPaths.transferContent(made.id)
            let first = try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=0-9"])
            #expect(first.status == .partialContent && bodyBytes(first) == Array(content[0..<10]))
            let etag = try #require(first.headers[.eTag])
            #expect(etag.count > 2 && etag != "\"\(sha256)\"")
            let resumed = try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=10-19", .ifRange: etag])
            #expect(resumed.status == .partialContent && bodyBytes(resumed) == Array(content[10..<20]))

            // A client before issue 46 sends no VFS-SHA256: the digest is worked out, for every listing after it too.
            let old = try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: tablet.token))
            #expect(old.map(\.sha256) == [sha256])
            try old.checkAnswer()
            #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token,
                                                                            headers: optional)).map(\.sha256) == [sha256])
            #expect(try decode([OutboxEntry].self, try await client.request(.get, RelayPaths.outbox, token: laptop.token)).map(\.sha256)
                    == [sha256])
            // Its resume: Range with If-Range the listed SHA-256, now also the ETag.
            let oldResume = try await client.request(.get, uri, token: tablet.token,
                                                     headers: [.range: "bytes=100000-", .ifRange: "\"\(sha256)\""])
            #expect(oldResume.status == .partialContent && bodyBytes(oldResume) == Array(content[100_000...]))
            #expect(oldResume.headers[.eTag] == "\"\(sha256)\"")
            // The ETag the blob had before still names it; another one is stale: all of it.
            #expect(try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=0-9", .ifRange: etag]).status
                    == .partialContent)
            let stale = try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=0-9", .ifRange: "\"old\""])
            #expect(stale.status == .ok && bodyBytes(stale) == content)

            // A share made of such an upload lists its digest from the start (worked out as it became a blob).
            let other = randomBytes(5000)
            let shared = try await client.upload(other, token: laptop.token, metadata: DeferredDigest.metadata)
            let share = try await client.request(.post, RelayPaths.shares, token: laptop.token, json: #"{"upload":"\#(shared)"}"#)
            #expect(share.status == .created)
            let link = try #require(share.headers[.location])
            #expect(try await client.request(.get, link).headers[.eTag] == "\"\(sha256Hex(other))\"")
        }
    }

    @Test("a blob of several download chunks: whole and ranged GETs across chunk edges are byte-identical")
    func chunkedRanges() async throws {
        let fixture = try RelayFixture()
        let chunk = BlobDownload.chunk
        let size = 3 * chunk + 1000
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let content = randomBytes(size)
            let upload = try await client.upload(content, token: laptop.token)
            let transfer = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                                                json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#))
            let uri = RelayPaths.transferContent(transfer.id)
            let whole = try await client.request(.get, uri, token: phone.token)
            #expect(whole.status == .ok && bodyBytes(whole) == content)
            // A resumed download starts anywhere: inside a chunk, on an edge, one byte before the end.
            for start in [1, chunk - 1, chunk, chunk + 17, 2 * chunk + 5, size - 1] {
                let response = try await client.request(.get, uri, token: phone.token,
                                                        headers: [.range: "bytes=\(start)-", .ifRange: "\"\(transfer.sha256)\""])
                #expect(response.status == .partialContent, "from \(start)")
                #expect(bodyBytes(response) == Array(content[start...]), "from \(start)")
            }
            let middle = try await client.request(.get, uri, token: phone.token, headers: [.range: "bytes=\(chunk - 3)-\(2 * chunk + 2)"])
            #expect(bodyBytes(middle) == Array(content[(chunk - 3)...(2 * chunk + 2)]))
        }
    }

    /// `content` stored as blob `id`, as a finished upload is (through an upload "u").
    static func storeBlob(_ id: String, _ content: [UInt8], in fixture: RelayFixture) async throws {
        try fixture.blobs.createUpload("u")
        let body = AsyncStream<ByteBuffer> { continuation in
            continuation.yield(ByteBuffer(bytes: content))
            continuation.finish()
        }
        _ = try await fixture.blobs.append(body, upload: "u", offset: 0, limit: Int64(content.count), progress: { _ in })
        try fixture.blobs.adopt(upload: "u", as: id)
    }

    @Test("the blob store's chunks: each one handed out keeps its bytes while the next are read (one buffer, reused)")
    func blobChunksStayIntact() async throws {
        let fixture = try RelayFixture()
        let content = randomBytes(5 * 65536 + 123)
        try await Self.storeBlob("b", content, in: fixture)
        for range in [0..<Int64(content.count), 70_000..<Int64(content.count - 5), 65536..<131072] {
            var kept: [ByteBuffer] = []
            try await fixture.blobs.read(blob: "b", range: range, chunk: 65536) { kept.append($0) }
            #expect(kept.count == (range.count + 65535) / 65536)
            #expect(kept.flatMap { Array($0.readableBytesView) } == Array(content[Int(range.lowerBound)..<Int(range.upperBound)]))
        }
    }

    @Test("a deleted blob leaves the blob folder at once and its file goes; leftovers of a stopped relay go when the store opens")
    func blobDeletion() async throws {
        let fixture = try RelayFixture()
        let content = randomBytes(100_000)
        try await Self.storeBlob("b", content, in: fixture)
        // A download that has the blob open reads it to the end after it is deleted.
        let fd = open(fixture.folder.path + "/blobs/b", O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        fixture.blobs.deleteBlob("b")
        #expect(!fixture.blobs.blobExists("b"))
        #expect(fixture.blobFiles().isEmpty)
        var first = [UInt8](repeating: 0, count: 100_000)
        #expect(first.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 100_000, 0) } == 100_000)
        #expect(first == content)
        let trash = fixture.folder.path + "/trash"
        var emptied = false
        for _ in 0..<500 where !emptied {
            emptied = ((try? FileManager.default.contentsOfDirectory(atPath: trash)) ?? ["?"]).isEmpty
            if !emptied { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(emptied, "the deleted blob's file is still in the trash folder")
        // Deleting a blob that is not there does nothing.
        fixture.blobs.deleteBlob("b")
        // A file left in the trash by a relay that stopped before removing it.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: trash + "/left.123"))
        _ = try FileBlobStore(root: fixture.folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: trash).isEmpty)
    }

    @Test("creation errors: unfinished upload 409, another user's upload or device 404, no targets 400, bad expiry 400")
    func creationErrors() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let created = try await client.request(.post, RelayPaths.uploads, token: laptop.token, headers: [tus: "1.0.0", uploadLength: "10"])
            let unfinished = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(unfinished)","devices":["\#(laptop.id)"]}"#).status == .conflict)
            let upload = try await client.upload([1, 2, 3], token: laptop.token)
            #expect(try await client.request(.post, RelayPaths.transfers, token: bob.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(bob.id)"]}"#).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(bob.id)"]}"#).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","groups":["nope"]}"#).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)"}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(laptop.id)"],"expires":"2001-01-01T00:00:00Z"}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(laptop.id)"],"priority":1}"#).status == .badRequest)
            // Every failure left the upload where it was, usable.
            #expect(fixture.blobFiles().isEmpty)
            #expect(try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                             json: #"{"upload":"\#(upload)","devices":["\#(laptop.id)"]}"#).status == .created)
        }
    }

    @Test("expiry: the sweep expires waiting copies and deletes the blob; invalidating a device expires its copies")
    func expiry() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let tablet = try await client.device(of: "alice@acme.example", name: "tablet")
            let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let first = try await client.upload(randomBytes(10), token: laptop.token)
            let short = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                json: #"{"upload":"\#(first)","devices":["\#(phone.id)"],"expires":"\#(soon)"}"#))
            let second = try await client.upload(randomBytes(10), token: laptop.token)
            _ = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                         json: #"{"upload":"\#(second)","devices":["\#(phone.id)","\#(tablet.id)"]}"#)
            #expect(fixture.blobFiles().count == 2)

            let maintenance = RelayMaintenance(store: fixture.store, blobs: fixture.blobs, configuration: fixture.configuration)
            let report = try await maintenance.sweep(now: short.expires.addingTimeInterval(1))
            #expect(report.releasedBlobs == 1)
            #expect(fixture.blobFiles().count == 1)
            let inbox = try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token))
            #expect(inbox.count == 1)

            // The phone is logged out: its copy expires, the tablet's stays.
            #expect(try await client.request(.delete, RelayPaths.device(phone.id), token: laptop.token).status == .noContent)
            #expect(try await fixture.store.referenceAudit().map(\.refs) == [1])
            #expect(try await client.request(.post, RelayPaths.transferAck(inbox[0].id), token: tablet.token).status == .noContent)
            #expect(fixture.blobFiles().isEmpty)
        }
    }
}

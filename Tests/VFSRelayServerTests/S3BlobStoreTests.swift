import Foundation
import HTTPTypes
import NIOCore
import Testing
import VFSObjectStore
import VFSRelayProtocol
import VFSTestSupport
@testable import VFSRelayServer

/// Blobs as objects in Ceph's RADOS Gateway (one gateway per test process, a bucket per test).
@Suite("S3 blob store on RADOS Gateway")
struct S3BlobStoreTests {
    let gateway: RGWFixture
    let bucket: String
    let settings: ObjectStoreSettings
    let folder: TestFolder
    /// Where the stores record uploads in progress (a relay's SQLite database).
    let records: SQLiteRelayStore

    @Test("Object Lock (issue 48): under a minimum retention the blob is written locked in governance mode where the bucket has Object Lock, and a plain DELETE, a DELETE of its version and the relay's own deletion all leave it; the operator's removal deletes it (bypassing governance); in a bucket without Object Lock it is written unlocked, and deleted all the same")
    func objectLock() async throws {
        let lockedBucket = try gateway.newBucket(objectLock: true)
        let location = try S3BlobLocation.parse("s3://\(lockedBucket)/relay/one?endpoint=\(gateway.endpoint)&region=\(gateway.region)").get()
        let locked = ObjectStoreSettings(location: location, credentials: settings.credentials)
        for (settings, hasLock) in [(locked, true), (self.settings, false)] {
            let fixture = try RelayFixture(objectStore: settings)
            let served = try #require(fixture.served as? S3BlobStore)
            let id = try await fixture.test { client in
                let laptop = try await client.user("alice@acme.example", org: "acme")
                let phone = try await client.device(of: "alice@acme.example", name: "phone")
                try await fixture.store.setMinRetention(org: try await fixture.store.organisationID(name: "acme"), seconds: 3600, now: Date())
                let upload = try await client.upload(Self.content(1000, seed: 9), token: laptop.token)
                let sent = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                    json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#)
                #expect(sent.status == .created)
                let id = try decode(OutboxEntry.self, sent).id
                #expect(try await client.request(.delete, RelayPaths.transfer(id), token: laptop.token).status == .forbidden)
                return id
            }
            let blob = try #require(try await fixture.store.referenceAudit().first?.id)
            let s3 = settings.client, key = served.key(blob)
            let written = try await Self.versions(s3, key) { $0.count == 1 }
            #expect(written.count == 1, "\(written)")
            let version = try #require(written.first)
            if hasLock {
                let retention = try #require(try await s3.retention(of: key))
                #expect(retention.mode == "GOVERNANCE")
                #expect(abs(retention.until.timeIntervalSinceNow - 3600) < 300, "\(retention.until)")
                // A plain DELETE only adds a delete marker: the locked version stays.
                let marker = try await s3.delete(key)
                #expect(marker != nil)
                let marked = try await Self.versions(s3, key) { $0.count == 2 }
                #expect(marked.contains(version) && marked.count == 2, "\(marked)")
                // Its version's DELETE is refused by the store before the date (403 AccessDenied).
                await #expect(throws: S3Error.self) { try await s3.delete(key, version: version) }
                // The relay's own deletion (the sweep's, a user's removal) leaves it too, the
                // current object again (its marker removed), for the sweep to find later.
                await served.deleteBlob(blob)
                let kept = try await Self.versions(s3, key) { $0 == [version] }
                #expect(kept == [version])
                #expect(try await s3.size(key) == 1000)
            } else {
                #expect(try await s3.retention(of: key) == nil)
            }
            // The operator's removal deletes it, every version.
            let removed = try await fixture.store.removeTransfer(id: id, now: Date())
            #expect(removed.released == [blob])
            for released in removed.released { await served.deleteLockedBlob(released) }
            let gone = try await Self.versions(s3, key) { $0.isEmpty }
            #expect(gone.isEmpty, "\(gone)")
            #expect(try await s3.size(key) == nil)
        }
    }

    @Test("Object Lock (issue 48): in a bucket with it, the relay's own deletion of a blob (its release once delivered, the sweep's) leaves no version of it: of one written unlocked (no retention set), and of one locked whose retention has passed")
    func objectLockRelease() async throws {
        let lockedBucket = try gateway.newBucket(objectLock: true)
        let location = try S3BlobLocation.parse("s3://\(lockedBucket)/relay/two?endpoint=\(gateway.endpoint)&region=\(gateway.region)").get()
        let settings = ObjectStoreSettings(location: location, credentials: self.settings.credentials)
        let fixture = try RelayFixture(objectStore: settings)
        let served = try #require(fixture.served as? S3BlobStore)
        let s3 = settings.client
        // No retention, then one of 8 seconds: long enough to lock the copy, short enough to wait out.
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let org = try await fixture.store.organisationID(name: "acme")
            for (seed, seconds) in [(11, nil), (12, 8)] as [(Int, Int64?)] {
                try await fixture.store.setMinRetention(org: org, seconds: seconds, now: Date())
                let upload = try await client.upload(Self.content(1000, seed: seed), token: laptop.token)
                let sent = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                    json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#)
                #expect(sent.status == .created)
            }
        }
        var locks: [(blob: String, until: Date?)] = []
        for blob in try await fixture.store.referenceAudit().map(\.id) {
            #expect(try await Self.versions(s3, served.key(blob)) { $0.count == 1 }.count == 1)
            locks.append((blob, try await s3.retention(of: served.key(blob))?.until))
        }
        #expect(locks.count == 2 && locks.filter { $0.until == nil }.count == 1, "\(locks)")
        let until = try #require(locks.compactMap(\.until).first)
        #expect(until > Date() && until < Date().addingTimeInterval(60), "\(until)")
        // Once its date has passed, no version of either stays.
        while Date() <= until.addingTimeInterval(1) { try await Task.sleep(for: .milliseconds(200)) }
        for (blob, _) in locks {
            await served.deleteBlob(blob)
            let left = try await Self.versions(s3, served.key(blob)) { $0.isEmpty }
            #expect(left.isEmpty, "\(blob): \(left)")
            #expect(try await s3.size(served.key(blob)) == nil)
        }
    }

    /// The version ids of `key` once `settled` holds of them (RGW's bucket index of a
    /// versioned bucket may show a write or a delete a moment late), else as they are
    /// after 60 seconds.
    static func versions(_ s3: S3Client, _ key: String, until settled: (Set<String>) -> Bool) async throws -> Set<String> {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let listed = Set(try await s3.versions(of: key))
            if settled(listed) || Date() > deadline { return listed }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    init() throws {
        gateway = try RGWFixture.start()
        bucket = try gateway.newBucket()
        let location = try S3BlobLocation.parse("s3://\(bucket)/relay/one?endpoint=\(gateway.endpoint)&region=\(gateway.region)").get()
        settings = ObjectStoreSettings(location: location, credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey))
        folder = try TestFolder("s3blobs")
        records = try openStore(RelayConfiguration(dataFolder: folder.url)).0
    }

    /// A store on the bucket; two made here are two relays on one database and bucket.
    func store(partSize: Int = 5 << 20) throws -> S3BlobStore {
        var store = S3BlobStore(settings, records: records)
        store.partSize = partSize
        store.uploadPartSize = 5 << 20
        return store
    }

    /// The row of upload `id` (of a user made on first use), as the relay makes it before the blob store sees the upload.
    func uploadRow(_ id: String, length: Int64?) async throws {
        if try await records.users().isEmpty {
            try await records.createOrganisation(name: "acme", now: Date())
            try await records.createUser(email: "alice@acme.example", organisation: "acme", admin: false, now: Date())
        }
        let user = try #require(try await records.users().first).id
        try await records.createUpload(UploadRecord(id: id, userID: user, deviceID: "d", length: length, offset: 0, metadata: "",
                                                    created: Date(), expires: Date().addingTimeInterval(3600)),
                                       limits: UploadLimits(quota: .max, openUploads: 100))
    }

    /// A body of `pieces` in turn, then (with `failure`) an error, as a connection that drops.
    static func body(_ pieces: [[UInt8]], failure: (any Error)? = nil) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            for piece in pieces { continuation.yield(ByteBuffer(bytes: piece)) }
            continuation.finish(throwing: failure)
        }
    }

    static func content(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed &* 101 &+ ($0 >> 12)) }
    }

    /// Stages `content` as upload `id` and adopts it as blob `blob`.
    func adopt(_ store: S3BlobStore, _ content: [UInt8], upload id: String, as blob: String) async throws {
        try await uploadRow(id, length: Int64(content.count))
        try await store.createUpload(id)
        let end = try await store.append(Self.body([content]), upload: id, offset: 0, limit: Int64(content.count)) { [records] offset in
            try await records.setUploadOffset(id: id, offset: offset, sha256: nil)
        }
        #expect(end == Int64(content.count))
        try await store.adopt(upload: id, as: blob)
        await store.deleteUpload(id)
    }

    func read(_ store: S3BlobStore, _ blob: String, _ range: Range<Int64>) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        try await store.read(blob: blob, range: range, chunk: 1 << 16) { bytes += $0.readableBytesView }
        return bytes
    }

    @Test("s3:// locations: bucket, prefix, endpoint and region read; bad ones refused with a reason")
    func locations() throws {
        let full = try S3BlobLocation.parse("s3://vfs-blobs/a/b/?endpoint=https://s3.example.net:9000&region=eu-west-3").get()
        #expect(full.bucket == "vfs-blobs" && full.prefix == "a/b/" && full.region == "eu-west-3")
        #expect(full.endpoint.absoluteString == "https://s3.example.net:9000")
        let bare = try S3BlobLocation.parse("s3://vfs-blobs?endpoint=http://127.0.0.1:7480").get()
        #expect(bare.prefix == "" && bare.region == "us-east-1")
        for bad in ["s3://ab?endpoint=http://h", "s3://bucket", "s3://bucket?endpoint=ftp://h", "s3://bucket?endpoint=http://h&colour=red", "/srv/blobs"] {
            #expect(throws: S3BlobLocation.ParseError.self, "\(bad)") { try S3BlobLocation.parse(bad).get() }
        }
        #expect(S3Credentials.file("# keys\n[other]\naws_access_key_id = NO\n[default]\naws_access_key_id = AK\naws_secret_access_key = S/K=\n")
                == S3Credentials(accessKeyID: "AK", secretAccessKey: "S/K="))
        #expect(S3Credentials.file("[default]\naws_access_key_id = AK\n") == nil)
        #expect(S3Credentials.environment(["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"]) == S3Credentials(accessKeyID: "A", secretAccessKey: "S"))
        #expect(S3Credentials.environment(["AWS_ACCESS_KEY_ID": "A"]) == nil)
    }

    @Test("a finished upload becomes one object under PREFIX/blobs/ (one PUT, one part, or several parts); ranged reads; nothing left on disk")
    func adoptAndRead() async throws {
        let store = try store()
        let sizes = [0, 1000, 5 << 20, (11 << 20) + 7]
        for (index, size) in sizes.enumerated() {
            try await adopt(store, Self.content(size, seed: index), upload: "u\(index)", as: "b\(index)")
        }
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/blobs/b0", "relay/one/blobs/b1", "relay/one/blobs/b2", "relay/one/blobs/b3"])
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false, "no multipart upload left open")
        let big = Self.content((11 << 20) + 7, seed: 3)
        #expect(try await read(store, "b3", 0..<Int64(big.count)) == big)
        #expect(try await read(store, "b3", (5 << 20) - 10..<(10 << 20) + 10) == Array(big[(5 << 20) - 10..<(10 << 20) + 10]))
        #expect(try await read(store, "b1", 999..<1000) == [Self.content(1000, seed: 1)[999]])
        #expect(try await read(store, "b0", 0..<0).isEmpty)
        #expect(try await store.blobs(olderThan: .distantFuture) == ["b0", "b1", "b2", "b3"])
        #expect(try await store.blobs(olderThan: .distantPast).isEmpty)
        let exists = try await store.existenceCheck()
        #expect(exists("b2") && !exists("b9"))
        await #expect(throws: BlobStoreError.self) { _ = try await read(store, "b9", 0..<1) }
        await store.deleteBlob("b2")
        await store.unadopt(blob: "b1", upload: "u1")
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/blobs/b0", "relay/one/blobs/b3"])
    }

    struct Dropped: Error {}

    @Test("an upload in progress is a multipart upload recorded in the database: a tail object between PATCHes, full parts uploaded and recorded with the offset, a dropped body keeps what arrived, another relay continues, completion makes one whole object")
    func multipartUpload() async throws {
        let relayA = try store(), relayB = try store()
        let content = Self.content((12 << 20) + 11, seed: 7)
        let length = Int64(content.count)
        try await uploadRow("m", length: length)
        let progress: @Sendable (Int64) async throws -> Void = { [records] in try await records.setUploadOffset(id: "m", offset: $0, sha256: nil) }
        // A: 3 MiB, less than a part: a tail object only, no multipart upload yet.
        var offset = try await relayA.append(Self.body([Array(content[..<(3 << 20)])]), upload: "m", offset: 0, limit: length, progress: progress)
        #expect(offset == 3 << 20)
        #expect(try await records.upload(id: "m", user: 1).offset == 3 << 20)
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/uploads/m.tail"])
        #expect(try await records.multipartState(upload: "m").parts.isEmpty)

        // B goes on from there; the connection drops after 4 MiB more: the first part (A's
        // tail and B's first 2 MiB) went up and was recorded, the 2 MiB after it are the tail.
        await #expect(throws: Dropped.self) {
            _ = try await relayB.append(Self.body([Array(content[(3 << 20)..<(5 << 20)]), Array(content[(5 << 20)..<(7 << 20)])], failure: Dropped()),
                                        upload: "m", offset: 3 << 20, limit: length, progress: progress)
        }
        let state = try await records.multipartState(upload: "m")
        #expect(state.offset == 7 << 20)
        #expect(state.parts.map(\.number) == [1] && state.parts.map(\.size) == [5 << 20] && state.multipartID != nil)
        let open = try gateway.multipartUploads(bucket: bucket)
        #expect(open.contains("<Key>relay/one/uploads/m</Key>") && open.contains(state.multipartID ?? "?"), "\(open)")

        // A finishes; a byte past the length is refused, and what fits is kept.
        await #expect(throws: BlobStoreError.self) {
            _ = try await relayA.append(Self.body([Array(content[(7 << 20)...]) + [0xFF]]), upload: "m", offset: 7 << 20, limit: length,
                                        progress: progress)
        }
        offset = try await records.multipartState(upload: "m").offset
        #expect(offset == length)
        #expect(try await relayB.digest(upload: "m", length: length) == sha256Hex(content))
        // Completed: no multipart upload left open, no tail, one whole object.
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false)
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/uploads/m"])
        #expect(try await records.multipartState(upload: "m").assembled)
        try await relayA.adopt(upload: "m", as: "blob")
        await relayA.deleteUpload("m")
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/blobs/blob"])
        #expect(try await read(relayB, "blob", 0..<length) == content)
    }

    struct Refused: Error {}

    @Test("provisional bytes (tus checksum): parts go up but are recorded only once accepted; refused or cut, the upload stays at its offset, and the next PATCH's parts take their place")
    func provisionalParts() async throws {
        let relay = try store()
        let content = Self.content((12 << 20) + 11, seed: 9)
        let length = Int64(content.count)
        try await uploadRow("p", length: length)
        let progress: @Sendable (Int64) async throws -> Void = { [records] in try await records.setUploadOffset(id: "p", offset: $0, sha256: nil) }
        _ = try await relay.append(Self.body([Array(content[..<(3 << 20)])]), upload: "p", offset: 0, limit: length, accept: {}, progress: progress)
        #expect(try await records.multipartState(upload: "p").offset == 3 << 20)
        // 8 MiB more (a part goes up), refused after the body, then again cut short: nothing recorded.
        let rest = Array(content[(3 << 20)..<(11 << 20)])
        await #expect(throws: Refused.self) {
            _ = try await relay.append(Self.body([rest]), upload: "p", offset: 3 << 20, limit: length, accept: { throw Refused() }, progress: progress)
        }
        await #expect(throws: Dropped.self) {
            _ = try await relay.append(Self.body([rest], failure: Dropped()), upload: "p", offset: 3 << 20, limit: length,
                                       accept: {}, progress: progress)
        }
        var state = try await records.multipartState(upload: "p")
        #expect(state.offset == 3 << 20 && state.parts.isEmpty)
        #expect(try await records.upload(id: "p", user: 1).offset == 3 << 20)
        // Accepted: its two parts and its offset recorded; the last bytes finish it.
        let end = try await relay.append(Self.body([rest]), upload: "p", offset: 3 << 20, limit: length, accept: {}, progress: progress)
        #expect(end == 11 << 20)
        state = try await records.multipartState(upload: "p")
        #expect(state.offset == 11 << 20 && state.parts.map(\.number) == [1, 2])
        _ = try await relay.append(Self.body([Array(content[(11 << 20)...])]), upload: "p", offset: 11 << 20, limit: length, accept: {},
                                   progress: progress)
        #expect(try await relay.digest(upload: "p", length: length) == sha256Hex(content))
        try await relay.adopt(upload: "p", as: "pblob")
        #expect(try await read(relay, "pblob", 0..<length) == content)
    }

    @Test("two relays: the upload hashes one kept of uploads the other finished (their rows gone) are forgotten once it holds the threshold's worth; a live upload's stays")
    func pairForgetsFinishedUploads() async throws {
        let relayA = try store()
        var relayB = S3BlobStore(settings, records: records, hashesPruneAt: 2)
        relayB.uploadPartSize = 5 << 20
        let content = Self.content(3 << 20, seed: 9)
        let length = Int64(content.count)
        func progress(_ id: String) -> @Sendable (Int64) async throws -> Void {
            { [records] in try await records.setUploadOffset(id: id, offset: $0, sha256: nil) }
        }
        // B takes the first MiB of "done", A the rest; A makes it a blob, and the row goes.
        try await uploadRow("done", length: length)
        _ = try await relayB.append(Self.body([Array(content[..<(1 << 20)])]), upload: "done", offset: 0, limit: length, progress: progress("done"))
        _ = try await relayA.append(Self.body([Array(content[(1 << 20)...])]), upload: "done", offset: 1 << 20, limit: length, progress: progress("done"))
        try await relayA.adopt(upload: "done", as: "done-blob")
        await relayA.deleteUpload("done")
        try await records.deleteUpload(id: "done", user: 1)
        #expect(relayB.hashes.count == 1, "B was not told")
        // A live upload on B: at two entries, its next PATCH asks the database and forgets "done".
        try await uploadRow("live", length: length)
        _ = try await relayB.append(Self.body([Array(content[..<(1 << 20)])]), upload: "live", offset: 0, limit: length, progress: progress("live"))
        #expect(relayB.hashes.count == 2)
        _ = try await relayB.append(Self.body([Array(content[(1 << 20)...])]), upload: "live", offset: 1 << 20, limit: length, progress: progress("live"))
        #expect(relayB.hashes.entry("done", atMost: .max) == nil)
        #expect(relayB.hashes.entry("live", atMost: length)?.offset == length)
        #expect(try await relayB.digest(upload: "live", length: length) == sha256Hex(content))
    }

    @Test("a relay killed at each stage of a multipart upload leaves it resumable by another: after CreateMultipartUpload before recording it, after a part went up before recording it, after CompleteMultipartUpload before recording that; the object whole, nothing left open")
    func killedAtEachStage() async throws {
        let relayA = try store(), relayB = try store()
        let content = Self.content((12 << 20) + 11, seed: 17)
        let length = Int64(content.count)
        try await uploadRow("k", length: length)
        let key = relayA.uploadKey("k")
        let progress: @Sendable (Int64) async throws -> Void = { [records] in try await records.setUploadOffset(id: "k", offset: $0, sha256: nil) }
        // A killed after CreateMultipartUpload answered, before the id was recorded: an open
        // multipart upload no row names.
        let lost = try await relayA.client.createMultipartUpload(key)
        // B starts the upload: its own multipart upload, recorded with its first part.
        var offset = try await relayB.append(Self.body([Array(content[..<(6 << 20)])]), upload: "k", offset: 0, limit: length, progress: progress)
        var state = try await records.multipartState(upload: "k")
        #expect(offset == 6 << 20 && state.parts.count == 1 && state.multipartID != lost)
        // A killed after part 2 went up, before it was recorded: the store holds a part 2 of other bytes.
        _ = try await relayA.client.uploadPart(key, uploadID: try #require(state.multipartID), number: 2,
                                               ByteBuffer(bytes: Self.content(5 << 20, seed: 99)))
        // B goes on from the recorded offset: its part 2 replaces the unrecorded one.
        offset = try await relayB.append(Self.body([Array(content[(6 << 20)...])]), upload: "k", offset: offset, limit: length, progress: progress)
        #expect(offset == length)
        // A killed after CompleteMultipartUpload answered, before the upload was recorded whole.
        state = try await records.multipartState(upload: "k")
        var pending = try await relayA.tail("k", state)
        while pending.readableBytes > 0 { try await relayA.cut("k", &state, from: &pending) }
        try await relayA.client.completeMultipartUpload(key, uploadID: try #require(state.multipartID),
                                                        parts: state.parts.map { (number: $0.number, etag: $0.etag) })
        #expect(try await records.multipartState(upload: "k").assembled == false)
        // B finds it whole by its size, and the content is the upload's.
        #expect(try await relayB.digest(upload: "k", length: length) == sha256Hex(content))
        #expect(try await records.multipartState(upload: "k").assembled)
        try await relayB.adopt(upload: "k", as: "kb")
        await relayB.deleteUpload("k")
        #expect(try await read(relayA, "kb", 0..<length) == content)
        // (Not the gateway's _multipart_ index entries: the part B replaced waits for RGW's own gc.)
        let left = try gateway.objectKeys(bucket: bucket, prefix: "relay/")
        #expect(left == ["relay/one/blobs/kb"], "\(left)")
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false, "the lost multipart upload aborted too")
    }

    @Test("abandoned uploads: the sweep aborts the multipart upload of an expired upload and of one no row names, and deletes their tails")
    func abandonedUploads() async throws {
        let store = try store()
        let content = Self.content(6 << 20, seed: 8)
        for id in ["expired", "orphan"] {
            try await uploadRow(id, length: 20 << 20)
            _ = try await store.append(Self.body([content]), upload: id, offset: 0, limit: 20 << 20) { [records] in
                try await records.setUploadOffset(id: id, offset: $0, sha256: nil)
            }
        }
        // (The gateway's index also names the parts of multipart uploads, as _multipart_… entries.)
        #expect(try gateway.objectKeys(bucket: bucket, prefix: "relay/") == ["relay/one/uploads/expired.tail", "relay/one/uploads/orphan.tail"])
        #expect(try gateway.multipartUploads(bucket: bucket).components(separatedBy: "<UploadId>").count == 3)
        #expect(try await store.uploads(olderThan: .distantFuture) == ["expired", "orphan"])
        #expect(try await store.uploads(olderThan: .distantPast).isEmpty)
        // The orphan's row is gone (a database restored from before it, say); the other expires.
        try await records.deleteUpload(id: "orphan", user: 1)
        var configuration = RelayConfiguration(dataFolder: folder.url)
        configuration.orphanGrace = 0
        let report = try await RelayMaintenance(store: records, blobs: store, configuration: configuration)
            .sweep(now: Date().addingTimeInterval(7200))
        #expect(report.expiredUploads == 1)
        #expect(report.orphanFiles == 1)
        // (Not the gateway's _multipart_ index entries: the part B replaced waits for RGW's own gc.)
        let left = try gateway.objectKeys(bucket: bucket, prefix: "relay/")
        #expect(left.isEmpty, "\(left)")
        #expect(try gateway.multipartUploads(bucket: bucket).contains("<UploadId>") == false)
    }

    @Test("a store that does not answer: a PATCH is answered 503 unavailable with Retry-After (tus clients try again), not 500; the offset stays")
    func storeUnreachable() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let closed = try S3BlobLocation.parse("s3://\(bucket)/relay?endpoint=http://127.0.0.1:\(refusing.port)&region=\(gateway.region)").get()
        let fixture = try RelayFixture(objectStore: ObjectStoreSettings(location: closed, credentials: settings.credentials))
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let tus: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0"]
            let created = try await client.request(.post, RelayPaths.uploads, token: laptop.token,
                                                   headers: tus + [HTTPField.Name("Upload-Length")!: "1000"])
            #expect(created.status == .created)
            let location = try #require(created.headers[.location])
            let patched = try await client.request(.patch, location, token: laptop.token, bytes: Self.content(1000, seed: 1), headers: tus + [
                HTTPField.Name("Upload-Offset")!: "0", .contentType: "application/offset+octet-stream",
            ])
            #expect(patched.status == .serviceUnavailable)
            #expect(patched.headers[.retryAfter] == "30")
            #expect(errorCode(patched) == "unavailable")
            let head = try await client.request(.head, location, token: laptop.token, headers: tus)
            #expect(head.headers[HTTPField.Name("Upload-Offset")!] == "0")
        }
    }

    @Test("a store that takes no connection (backlog full) or takes it and never answers: a PATCH ends, answered 503 unavailable with Retry-After, after the short connect or read timeout; the offset stays")
    func storeNotAnswering() async throws {
        for full in [true, false] {
            let listener = try SilentListener(full: full)
            var silent = settings
            silent.location = try S3BlobLocation.parse("s3://\(bucket)/relay?endpoint=http://127.0.0.1:\(listener.port)&region=\(gateway.region)").get()
            silent.connectTimeout = .seconds(1)
            silent.readTimeout = .seconds(1)
            let fixture = try RelayFixture(objectStore: silent)
            let ended = try await fixture.test { client in
                let laptop = try await client.user("alice@acme.example", org: "acme")
                let tus: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0"]
                let created = try await client.request(.post, RelayPaths.uploads, token: laptop.token,
                                                       headers: tus + [HTTPField.Name("Upload-Length")!: "1000"])
                let location = try #require(created.headers[.location])
                // A generous deadline: what is asserted is that the PATCH ends, not how soon.
                let patched = try await within(seconds: 600) {
                    try await client.request(.patch, location, token: laptop.token, bytes: Self.content(1000, seed: 1), headers: tus + [
                        HTTPField.Name("Upload-Offset")!: "0", .contentType: "application/offset+octet-stream",
                    ])
                }
                #expect(patched.status == .serviceUnavailable, "full backlog: \(full)")
                #expect(patched.headers[.retryAfter] == "30")
                #expect(errorCode(patched) == "unavailable")
                let head = try await client.request(.head, location, token: laptop.token, headers: tus)
                #expect(head.headers[HTTPField.Name("Upload-Offset")!] == "0")
                return true
            }
            #expect(ended)
        }
    }

    @Test("a download whose S3 answer is cut off midway: the relay goes on from the byte reached and the client gets the whole blob; cut every time, the client's answer is cut too, never a short 200")
    func downloadCutOffMidway() async throws {
        let target = try #require(URL(string: gateway.endpoint)?.port)
        let content = Self.content(2_000_000, seed: 4)
        for cuts in [1, 1000] {
            let proxy = try TestProxy(to: target, cuts: cuts, cutAfter: 600_000, armed: false)
            var through = settings
            through.location.endpoint = URL(string: "http://127.0.0.1:\(proxy.port)")!
            let fixture = try RelayFixture(objectStore: through)
            try await fixture.test { client in
                let laptop = try await client.user("alice@acme.example", org: "acme")
                let phone = try await client.device(of: "alice@acme.example", name: "phone")
                let upload = try await client.upload(content, token: laptop.token)
                let sent = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                    json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#)
                let id = try decode(OutboxEntry.self, sent).id
                proxy.arm()
                if cuts == 1 {
                    let fetched = try await client.request(.get, RelayPaths.transferContent(id), token: phone.token)
                    #expect(fetched.status == .ok)
                    #expect(bodyBytes(fetched) == content)
                } else {
                    do {
                        let fetched = try await client.request(.get, RelayPaths.transferContent(id), token: phone.token)
                        #expect(bodyBytes(fetched).count < content.count, "a body cut short, not a whole one")
                        #expect(fetched.headers[.contentLength] == "\(content.count)", "the length promised is the blob's: the short body shows")
                    } catch {
                        // The connection cut: what a client must see.
                    }
                }
            }
            #expect(cuts == 1 ? proxy.cut == 1 : proxy.cut == 3, "\(cuts): \(proxy.cut) cut, \(proxy.accepted) accepted")
        }
    }

    @Test("copying a folder's blobs into the bucket: a file of another size than its row is refused and nothing stored for it; a row with no file is reported missing; one already there whole is kept")
    func blobsIntoBucket() async throws {
        let store = try store()
        let blobsFolder = folder.url.appendingPathComponent("old/blobs")
        try FileManager.default.createDirectory(at: blobsFolder, withIntermediateDirectories: true)
        let good = Self.content(6 << 20, seed: 31)
        try Data(good).write(to: blobsFolder.appendingPathComponent("good"))
        try Data(Self.content(999, seed: 32)).write(to: blobsFolder.appendingPathComponent("short"))
        let rows = [BlobRef(id: "good", size: Int64(good.count), sha256: ""), BlobRef(id: "gone", size: 10, sha256: "")]
        let report = try await BlobsIntoBucket.copy(rows, from: folder.url.appendingPathComponent("old"), to: store)
        #expect(report == BlobsIntoBucket.Report(copied: 1, bytes: Int64(good.count), present: 0, missing: ["gone"]))
        #expect(try await read(store, "good", 0..<Int64(good.count)) == good)
        let again = try await BlobsIntoBucket.copy(rows, from: folder.url.appendingPathComponent("old"), to: store)
        #expect(again == BlobsIntoBucket.Report(copied: 0, bytes: 0, present: 1, missing: ["gone"]))
        await #expect(throws: BlobsIntoBucket.Failure.self) {
            _ = try await BlobsIntoBucket.copy([BlobRef(id: "short", size: 1000, sha256: "")], from: folder.url.appendingPathComponent("old"), to: store)
        }
        #expect(try gateway.objectKeys(bucket: bucket, prefix: "relay/") == ["relay/one/blobs/good"])
    }

    @Test("rewrite: a new header in front of the payload after the old one, as a new object; size and SHA-256 of what was stored")
    func rewrite() async throws {
        let store = try store()
        let old = Self.content((6 << 20) + 3, seed: 9)
        try await adopt(store, old, upload: "u", as: "old")
        let header = Array("age-encryption.org/v1 new header\n".utf8)
        let made = try await store.rewrite(blob: "old", replacing: 100, with: header, as: "new")
        let expected = header + old[100...]
        #expect(made.size == Int64(expected.count))
        #expect(made.sha256 == sha256Hex(expected))
        #expect(try await read(store, "new", 0..<made.size) == expected)
        await #expect(throws: BlobStoreError.self) { _ = try await store.rewrite(blob: "absent", replacing: 0, with: header, as: "x") }
    }

    @Test("through the relay: upload, transfer, ranged download from the bucket; the sweep deletes orphan objects and rows whose object is gone, never a referenced one")
    func relayOnS3() async throws {
        let fixture = try RelayFixture(objectStore: settings)
        let first = Self.content(300_000, seed: 1), second = Self.content(1000, seed: 2)
        let transfers = try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            var ids: [String] = []
            for content in [first, second] {
                let upload = try await client.upload(content, token: laptop.token)
                let sent = try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                    json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#)
                #expect(sent.status == .created)
                ids.append(try decode(OutboxEntry.self, sent).id)
            }
            let ranged = try await client.request(.get, RelayPaths.transferContent(ids[0]), token: phone.token,
                                                  headers: [.range: "bytes=1000-"])
            #expect(ranged.status == .partialContent)
            #expect(bodyBytes(ranged) == Array(first[1000...]))
            return ids
        }
        #expect(transfers.count == 2)
        #expect(fixture.blobFiles().isEmpty, "no blob file in the data folder")
        #expect(fixture.uploadFiles().isEmpty, "the staged uploads are gone")
        let rows = try await fixture.store.referenceAudit()
        #expect(try gateway.objectKeys(bucket: bucket) == rows.map { "relay/one/blobs/\($0.id)" }.sorted())

        // Damage: a stray object, and one row's object deleted behind the relay's back.
        try await fixture.served.adoptStray(bucket: bucket, gateway: gateway)
        let lost = rows[1].id
        await fixture.served.deleteBlob(lost)
        var configuration = fixture.configuration
        configuration.orphanGrace = 0
        let report = try await RelayMaintenance(store: fixture.store, blobs: fixture.served, configuration: configuration)
            .sweep(now: Date().addingTimeInterval(5))
        #expect(report.orphanFiles == 1)
        #expect(report.orphanRows == 1)
        let kept = try await fixture.store.referenceAudit().map(\.id)
        #expect(kept == [rows[0].id])
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/blobs/\(rows[0].id)"], "the referenced object stays")
    }
}

extension BlobStore {
    /// An object under the blob prefix that no row names (put with curl).
    func adoptStray(bucket: String, gateway: RGWFixture) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stray-\(UUID().uuidString)")
        try Data("stray".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let put = try Tools.run("curl", ["-sf", "--aws-sigv4", "aws:amz:\(gateway.region):s3", "--user", "\(gateway.accessKey):\(gateway.secretKey)",
                                         "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", file.path, "\(gateway.endpoint)/\(bucket)/relay/one/blobs/stray"])
        #expect(put.status == 0, "\(put.stderr)")
    }
}

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

    init() throws {
        gateway = try RGWFixture.start()
        bucket = try gateway.newBucket()
        let location = try S3BlobLocation.parse("s3://\(bucket)/relay/one?endpoint=\(gateway.endpoint)&region=\(gateway.region)").get()
        settings = ObjectStoreSettings(location: location, credentials: S3Credentials(accessKeyID: gateway.accessKey, secretAccessKey: gateway.secretKey))
        folder = try TestFolder("s3blobs")
    }

    func store(partSize: Int = 5 << 20) throws -> S3BlobStore {
        var store = S3BlobStore(settings, staging: try FileBlobStore(root: folder.url))
        store.partSize = partSize
        return store
    }

    static func content(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed &* 101 &+ ($0 >> 12)) }
    }

    /// Stages `content` as upload `id` and adopts it as blob `blob`.
    func adopt(_ store: S3BlobStore, _ content: [UInt8], upload id: String, as blob: String) async throws {
        try await store.createUpload(id)
        let body = AsyncStream<ByteBuffer> { continuation in
            continuation.yield(ByteBuffer(bytes: content))
            continuation.finish()
        }
        #expect(try await store.append(body, upload: id, offset: 0, limit: Int64(content.count)) { _ in } == Int64(content.count))
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
        // The staged files went with deleteUpload; the data folder holds no blob.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("uploads")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("blobs")).isEmpty)
        #expect(try await store.blobs(olderThan: .distantFuture) == ["b0", "b1", "b2", "b3"])
        #expect(try await store.blobs(olderThan: .distantPast).isEmpty)
        let exists = try await store.existenceCheck()
        #expect(exists("b2") && !exists("b9"))
        await #expect(throws: BlobStoreError.self) { _ = try await read(store, "b9", 0..<1) }
        await store.deleteBlob("b2")
        await store.unadopt(blob: "b1", upload: "u1")
        #expect(try gateway.objectKeys(bucket: bucket) == ["relay/one/blobs/b0", "relay/one/blobs/b3"])
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

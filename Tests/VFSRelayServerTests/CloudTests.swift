import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("cloud tree")
struct CloudTests {
    @Test("mkdir, put, list, get with Range, move, replace, recursive delete, the versions keeping their blobs (issue 50); per user")
    func tree() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let folder = #"{"kind":"folder"}"#
            #expect(try await client.request(.post, RelayPaths.cloud("/photos"), token: alice.token, json: folder).status == .created)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos"), token: alice.token, json: folder).status == .conflict)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos/2026"), token: alice.token, json: folder).status == .created)
            #expect(try await client.request(.post, RelayPaths.cloud("/nope/x"), token: alice.token, json: folder).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos/x"), token: alice.token, json: #"{"kind":"file"}"#).status == .badRequest)

            let content = randomBytes(5000)
            let upload = try await client.upload(content, token: alice.token)
            let put = try await client.request(.put, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token, json: #"{"upload":"\#(upload)"}"#)
            #expect(put.status == .created)
            let entry = try decode(CloudEntry.self, put)
            #expect(entry.path == "/photos/2026/a b.age" && entry.size == 5000 && entry.sha256 == sha256Hex(content))

            let root = try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: alice.token))
            #expect(root.map(\.name) == ["photos"])
            let year = try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud("/photos/2026"), token: alice.token))
            #expect(year.map(\.path) == ["/photos/2026/a b.age"])
            let file = try await client.request(.get, RelayPaths.cloud("/photos/2026/a%20b.age"), token: alice.token)
            #expect(bodyBytes(file) == content)
            let part = try await client.request(.get, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token, headers: [.range: "bytes=100-199"])
            #expect(part.status == .partialContent)
            #expect(bodyBytes(part) == Array(content[100..<200]))

            // Bob's tree is his own: alice's paths do not exist for him.
            #expect(try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: bob.token)).isEmpty)
            #expect(try await client.request(.get, RelayPaths.cloud("/photos/2026/a b.age"), token: bob.token).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.cloud("/photos"), token: bob.token).status == .notFound)
            #expect(try await client.request(.patch, RelayPaths.cloud("/photos"), token: bob.token, json: #"{"to":"/x"}"#).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.cloud("/b.age"), token: bob.token, json: #"{"upload":"\#(upload)"}"#).status == .notFound)

            // Replace the file: the old blob stays, held by the version it was (issue 50).
            let second = try await client.upload(randomBytes(10), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token,
                                             json: #"{"upload":"\#(second)"}"#).status == .created)
            #expect(fixture.blobFiles().count == 2)

            // Moves: rename a folder, refuse moving into itself or onto an existing name.
            let moved = try await client.request(.patch, RelayPaths.cloud("/photos/2026"), token: alice.token, json: #"{"to":"/archive-2026"}"#)
            #expect(moved.status == .ok)
            #expect(try decode(CloudEntry.self, moved).path == "/archive-2026")
            #expect(try await client.request(.get, RelayPaths.cloud("/archive-2026/a b.age"), token: alice.token).status == .ok)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/archive-2026/inner"}"#).status == .conflict)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/photos"}"#).status == .conflict)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/photos/../x"}"#).status == .badRequest)

            // A file cannot replace a folder; an unfinished upload is no file; parents must exist.
            let third = try await client.upload(randomBytes(5), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .conflict)
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "9"])
            let unfinished = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(try await client.request(.put, RelayPaths.cloud("/u"), token: alice.token,
                                             json: #"{"upload":"\#(unfinished)"}"#).status == .conflict)
            #expect(try await client.request(.put, RelayPaths.cloud("/none/u"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .notFound)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/none/x"}"#).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.cloud("/archive-2026/a b.age/deeper"), token: alice.token).status == .notFound)
            // The failed PUTs left the upload usable.
            #expect(try await client.request(.put, RelayPaths.cloud("/archive-2026/third"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .created)

            #expect(try await client.request(.delete, RelayPaths.cloud("/archive-2026"), token: alice.token).status == .noContent)
            // The removed files' versions hold the three blobs, each reference counted.
            #expect(fixture.blobFiles().count == 3)
            let audit = try await fixture.store.referenceAudit()
            #expect(audit.count == 3 && audit.allSatisfy { $0.refs == $0.live })
            // The root is listed (GET, and so HEAD) but never deleted: 405, with Allow naming them.
            let deleteRoot = try await client.request(.delete, RelayPaths.cloud("/"), token: alice.token)
            #expect(deleteRoot.status == .methodNotAllowed)
            #expect(deleteRoot.headers[HTTPField.Name("Allow")!] == "GET, HEAD")
        }
    }

    /// A file shaped like an age file: header (version line, a stanza, MAC line), then payload.
    static func ageLike(stanza: String, payload: [UInt8]) -> [UInt8] {
        let mac = String(repeating: "A", count: 43)
        return Array("age-encryption.org/v1\n-> X25519 \(stanza)\nAAAA\n--- \(mac)\n".utf8) + payload
    }

    @Test("cloud-header replaces only the header: new blob, same payload bytes, old one released; 412 on a stale SHA-256; shapes checked")
    func replaceHeader() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let payload = randomBytes(200_000)
            let old = Self.ageLike(stanza: "old", payload: payload)
            let upload = try await client.upload(old, token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/f.age"), token: alice.token, json: #"{"upload":"\#(upload)"}"#).status == .created)
            let oldHeaderLength = old.count - payload.count
            let header = Array(Self.ageLike(stanza: "new-and-longer", payload: []))
            func body(_ header: [UInt8], length: Int, sha: String) -> String {
                #"{"header":"\#(Data(header).base64EncodedString())","length":\#(length),"sha256":"\#(sha)"}"#
            }
            // Someone else's path, a stale SHA-256, a header that is not one, a length that cuts the payload.
            #expect(try await client.request(.put, RelayPaths.cloudHeader("/f.age"), token: bob.token,
                                             json: body(header, length: oldHeaderLength, sha: sha256Hex(old))).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.cloudHeader("/f.age"), token: alice.token,
                                             json: body(header, length: oldHeaderLength, sha: sha256Hex([1]))).status == .preconditionFailed)
            #expect(try await client.request(.put, RelayPaths.cloudHeader("/f.age"), token: alice.token,
                                             json: body(Array("hello".utf8), length: oldHeaderLength, sha: sha256Hex(old))).status == .badRequest)
            #expect(try await client.request(.put, RelayPaths.cloudHeader("/f.age"), token: alice.token,
                                             json: body(header, length: oldHeaderLength + 10, sha: sha256Hex(old))).status == .badRequest)
            let blobsBefore = fixture.blobFiles()
            let replaced = try await client.request(.put, RelayPaths.cloudHeader("/f.age"), token: alice.token,
                                                    json: body(header, length: oldHeaderLength, sha: sha256Hex(old)))
            #expect(replaced.status == .ok)
            let entry = try decode(CloudEntry.self, replaced)
            let expected = header + payload
            #expect(entry.sha256 == sha256Hex(expected) && entry.size == Int64(expected.count))
            #expect(bodyBytes(try await client.request(.get, RelayPaths.cloud("/f.age"), token: alice.token)) == expected)
            #expect(fixture.blobFiles().count == 1 && fixture.blobFiles() != blobsBefore)
            // The file and its version (the head's row follows the new header) hold it.
            #expect(try await fixture.store.referenceAudit().map(\.refs) == [2])
            // The usage route counts it.
            let usage = try decode(CloudUsage.self, try await client.request(.get, RelayPaths.cloudUsage, token: alice.token))
            #expect(usage.files == 1 && usage.folders == 0 && usage.bytes == Int64(expected.count) && usage.used >= usage.bytes)
            #expect(usage.quota == fixture.configuration.userQuota)
        }
    }

    @Test("PUT {transfer} keeps a sent transfer's blob as a cloud file: one blob, two references, released one by one")
    func transferCopy() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let content = randomBytes(9000)
            let upload = try await client.upload(content, token: laptop.token)
            let transfer = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                                                  json: #"{"upload":"\#(upload)","devices":["\#(phone.id)"]}"#))
            // Only the sender's own transfers; exactly one source.
            #expect(try await client.request(.put, RelayPaths.cloud("/kept"), token: phone.token,
                                             json: #"{"transfer":"\#(transfer.id)"}"#).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.cloud("/kept"), token: bob.token,
                                             json: #"{"transfer":"\#(transfer.id)"}"#).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.cloud("/kept"), token: laptop.token,
                                             json: #"{"transfer":"\#(transfer.id)","upload":"x"}"#).status == .badRequest)
            let put = try await client.request(.put, RelayPaths.cloud("/kept"), token: laptop.token, json: #"{"transfer":"\#(transfer.id)"}"#)
            #expect(put.status == .created)
            #expect(try decode(CloudEntry.self, put).sha256 == sha256Hex(content))
            #expect(fixture.blobFiles().count == 1)
            // The copy waiting, the file and its version (issue 50).
            #expect(try await fixture.store.referenceAudit().map(\.refs) == [3])
            // The phone fetches it: the cloud file keeps the blob.
            #expect(try await client.request(.post, RelayPaths.transferAck(transfer.id), token: phone.token).status == .noContent)
            #expect(try await fixture.store.referenceAudit().map(\.refs) == [2])
            #expect(bodyBytes(try await client.request(.get, RelayPaths.cloud("/kept"), token: laptop.token)) == content)
            #expect(try await client.request(.delete, RelayPaths.cloud("/kept"), token: laptop.token).status == .noContent)
            // The removed file's version keeps it.
            #expect(fixture.blobFiles().count == 1)
            #expect(try await fixture.store.referenceAudit().map(\.refs) == [1])
        }
    }

    @Test("a user holds at most maxCloudEntries files and folders: one more (mkdir, put of an upload or a transfer) is 507 too_many_entries; replacing a file is not; a delete frees a place")
    func entryCap() async throws {
        let fixture = try RelayFixture { $0.maxCloudEntries = 2 }
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let folder = #"{"kind":"folder"}"#
            #expect(try await client.request(.post, RelayPaths.cloud("/a"), token: laptop.token, json: folder).status == .created)
            let upload = try await client.upload(randomBytes(1), token: laptop.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/a/one"), token: laptop.token,
                                             json: #"{"upload":"\#(upload)"}"#).status == .created)
            let refused = try await client.request(.post, RelayPaths.cloud("/b"), token: laptop.token, json: folder)
            #expect(refused.status.code == 507 && errorCode(refused) == "too_many_entries")
            #expect((try? decode(RelayErrorBody.self, refused))?.message
                    == "you hold 2 cloud files and folders, the most a user may; delete some to make room")
            let more = try await client.upload(randomBytes(10), token: laptop.token)
            let put = try await client.request(.put, RelayPaths.cloud("/a/more"), token: laptop.token, json: #"{"upload":"\#(more)"}"#)
            #expect(put.status.code == 507 && errorCode(put) == "too_many_entries")
            let transfer = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: laptop.token,
                                                                                  json: #"{"upload":"\#(more)","devices":["\#(phone.id)"]}"#))
            let kept = try await client.request(.put, RelayPaths.cloud("/kept"), token: laptop.token, json: #"{"transfer":"\#(transfer.id)"}"#)
            #expect(kept.status.code == 507 && errorCode(kept) == "too_many_entries")
            // Replacing the file there adds no entry; a delete makes room for the transfer's copy.
            #expect(try await client.request(.put, RelayPaths.cloud("/a/one"), token: laptop.token,
                                             json: #"{"upload":"\#(try await client.upload(randomBytes(3), token: laptop.token))"}"#).status == .created)
            #expect(try await client.request(.delete, RelayPaths.cloud("/a/one"), token: laptop.token).status == .noContent)
            #expect(try await client.request(.put, RelayPaths.cloud("/kept"), token: laptop.token,
                                             json: #"{"transfer":"\#(transfer.id)"}"#).status == .created)
            #expect(try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: laptop.token)).map(\.name)
                    == ["a", "kept"])
        }
    }

    @Test("PUT with base (issue 50): replaces only that version, else 409 version_conflict naming the head with the upload kept; create refuses a file that is there; base and create together are 400; listings carry the version")
    func putBasedOnVersion() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let first = try await client.upload(randomBytes(10), token: alice.token)
            let created = try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token, json: #"{"upload":"\#(first)","create":true}"#)
            #expect(created.status == .created)
            let v1 = try #require(try decode(CloudEntry.self, created).version)
            #expect(try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: alice.token)).map(\.version) == [v1])
            let second = try await client.upload(randomBytes(20), token: alice.token)
            let taken = try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token, json: #"{"upload":"\#(second)","create":true}"#)
            #expect(taken.status == .conflict && errorCode(taken) == "version_conflict")
            let stale = try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token, json: #"{"upload":"\#(second)","base":"other"}"#)
            #expect(stale.status == .conflict && errorCode(stale) == "version_conflict")
            #expect((try? decode(RelayErrorBody.self, stale))?.message.contains("is at version \(v1) now") == true)
            #expect(try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token,
                                             json: #"{"upload":"\#(second)","base":"\#(v1)","create":true}"#).status == .badRequest)
            // The refused upload is still there: based on the head, it replaces it.
            let replaced = try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token, json: #"{"upload":"\#(second)","base":"\#(v1)"}"#)
            #expect(replaced.status == .created)
            let v2 = try #require(try decode(CloudEntry.self, replaced).version)
            #expect(v2 != v1 && fixture.blobFiles().count == 2)
            // Without base or create, whatever is there is replaced (put -f).
            let third = try await client.upload(randomBytes(30), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/n.txt"), token: alice.token, json: #"{"upload":"\#(third)"}"#).status == .created)
        }
    }

    @Test("history routes (issue 50): cloud-log lists a file's versions, cloud-version serves one's bytes with Range, cloud-trash the removed files, cloud-restore puts a tree back; per user; bad bodies 400, a future time 400, nothing then 404")
    func historyRoutes() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            #expect(try await client.request(.post, RelayPaths.cloud("/d"), token: alice.token, json: #"{"kind":"folder"}"#).status == .created)
            let first = randomBytes(3000), second = randomBytes(4000)
            func put(_ path: String, _ content: [UInt8]) async throws {
                let upload = try await client.upload(content, token: alice.token)
                #expect(try await client.request(.put, RelayPaths.cloud(path), token: alice.token, json: #"{"upload":"\#(upload)"}"#).status == .created)
            }
            try await put("/d/f", first)
            try await put("/d/g", first)
            let t1 = Date()
            try await put("/d/f", second)
            #expect(try await client.request(.delete, RelayPaths.cloud("/d/g"), token: alice.token).status == .noContent)

            let log = try decode([CloudVersion].self, try await client.request(.get, RelayPaths.cloudLog + "/d/f", token: alice.token))
            #expect(log.count == 2 && log[0].until == nil && log[1].until != nil && log.allSatisfy { $0.device == alice.id })
            #expect(log.map(\.sha256) == [sha256Hex(second), sha256Hex(first)])
            let old = RelayPaths.cloudVersion + "/" + log[1].id
            #expect(bodyBytes(try await client.request(.get, old, token: alice.token)) == first)
            let part = try await client.request(.get, old, token: alice.token, headers: [.range: "bytes=10-19"])
            #expect(part.status == .partialContent && bodyBytes(part) == Array(first[10..<20]))
            #expect(try await client.request(.get, old, token: bob.token).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.cloudLog + "/d/f", token: bob.token).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.cloudLog + "/d/none", token: alice.token).status == .notFound)
            let trash = try decode([CloudVersion].self, try await client.request(.get, RelayPaths.cloudTrash, token: alice.token))
            #expect(trash.map(\.path) == ["/d/g"])
            #expect(try decode([CloudVersion].self, try await client.request(.get, RelayPaths.cloudTrash, token: bob.token)).isEmpty)

            let restoreRoute = RelayPaths.cloudRestore + "/d"
            func at(_ date: Date) -> String { PreciseTime.text(date) }
            #expect(try await client.request(.post, restoreRoute, token: alice.token, json: #"{"at":"\#(at(t1))","other":1}"#).status == .badRequest)
            #expect(try await client.request(.post, restoreRoute, token: alice.token, json: #"{"recursive":true}"#).status == .badRequest)
            #expect(try await client.request(.post, restoreRoute, token: alice.token,
                                             json: #"{"at":"\#(at(Date().addingTimeInterval(3600)))","recursive":true}"#).status == .badRequest)
            #expect(try await client.request(.post, restoreRoute, token: bob.token, json: #"{"at":"\#(at(t1))","recursive":true}"#).status == .notFound)
            #expect(try await client.request(.post, restoreRoute, token: alice.token, json: #"{"at":"\#(at(t1))"}"#).status == .conflict)
            #expect(try await client.request(.post, restoreRoute, token: alice.token,
                                             json: #"{"at":"2000-01-01T00:00:00Z","recursive":true}"#).status == .notFound)
            // The log's times are to the microsecond: its own since restores that version.
            let restored = try await client.request(.post, restoreRoute, token: alice.token, json: #"{"at":"\#(at(t1))","recursive":true}"#)
            #expect(restored.status == .ok)
            let done = try decode(CloudRestored.self, restored)
            #expect(done.restored.map(\.path) == ["/d/f", "/d/g"] && done.removed.isEmpty)
            #expect(bodyBytes(try await client.request(.get, RelayPaths.cloud("/d/f"), token: alice.token)) == first)
            #expect(bodyBytes(try await client.request(.get, RelayPaths.cloud("/d/g"), token: alice.token)) == first)
            let single = try await client.request(.post, RelayPaths.cloudRestore + "/d/f", token: alice.token,
                                                  json: #"{"at":"\#(at(log[0].since))"}"#)
            #expect(try decode(CloudRestored.self, single).restored.map(\.sha256) == [sha256Hex(second)])
            #expect(try await client.request(.get, RelayPaths.cloudTrash, token: alice.token).status == .ok)
            let audit = try await fixture.store.referenceAudit()
            // f's two uploads and g's one.
            #expect(audit.count == 3 && audit.allSatisfy { $0.refs == $0.live })
        }
    }

    @Test("store: cloudReplaceBlob checks the expected SHA-256; cloudPutTransfer needs a live transfer")
    func storeMethods() async throws {
        let fixture = try RelayFixture()
        let store = fixture.store
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let upload = try await client.upload(Self.ageLike(stanza: "a", payload: [1, 2, 3]), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/f"), token: alice.token, json: #"{"upload":"\#(upload)"}"#).status == .created)
            let user = try #require(try await store.authenticate(tokenHash: Secrets.hash(alice.token), now: Date())).userID
            let now = Date()
            await #expect(throws: StoreError.self) {
                _ = try await store.cloudReplaceBlob(path: ["f"], expected: "stale", with: BlobRef(id: "n1", size: 1, sha256: "x"), user: user, now: now)
            }
            await #expect(throws: StoreError.self) {
                _ = try await store.cloudReplaceBlob(path: ["nope"], expected: "x", with: BlobRef(id: "n1", size: 1, sha256: "x"), user: user, now: now)
            }
            let current = try await store.cloudFile(path: ["f"], user: user)
            let (entry, released) = try await store.cloudReplaceBlob(path: ["f"], expected: current.sha256,
                                                                     with: BlobRef(id: "n2", size: 5, sha256: "abc"), user: user, now: now)
            #expect(entry.sha256 == "abc" && entry.size == 5 && released == [current.id])
            #expect(try await store.cloudFile(path: ["f"], user: user) == BlobRef(id: "n2", size: 5, sha256: "abc"))
            await #expect(throws: StoreError.self) {
                _ = try await store.cloudPutTransfer(path: ["g"], id: "g1", transfer: "none", sender: alice.id, user: user, expecting: .any, maxEntries: 100, now: now)
            }
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// Share links (issue 51): the store's atomic count on both engines, and the routes.
@Suite("share links")
struct ShareTests {
    @Test("of 20 downloads at once of a link allowing 1 exactly one is counted; revoke and expiry release the blob", arguments: Backend.allCases)
    func countedAtOnce(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let now = Date()
        let upload = try await fixture.finishedUpload(alice[0], length: 10)
        let share = try await store.createShare(id: "s1", upload: upload, blobID: "b1", owner: alice[0],
                                                expires: now.addingTimeInterval(3600), maxDownloads: 1, now: now)
        #expect(share.size == 10 && share.maxDownloads == 1 && share.downloads.isEmpty)
        #expect(try await store.usage(user: alice[0].userID) == 10)
        let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<20 {
                group.addTask {
                    try await store.countShareDownload(id: "s1", size: { $0.size }, address: "192.0.2.\(n)", resume: nil, now: Date()).admitted
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(admitted == 1)
        let listed = try #require(try await store.shares(user: alice[0].userID).first)
        #expect(listed.downloads.count == 1 && listed.downloads[0].size == 10 && listed.downloads[0].address.hasPrefix("192.0.2."))
        #expect(!listed.isLive(at: Date()))
        // Each device of the user (not one of another) hears of it.
        for device in alice {
            let events = try await store.events(device: device.deviceID, after: 0, limit: 10).filter { $0.kind == .share }
            #expect(events.count == 1)
        }
        #expect(try await fixture.referencesHold())
        // A used-up link keeps its blob until it is revoked: then it is released, once.
        #expect(try await store.revokeShare(id: "s1", user: alice[0].userID, now: Date()) == ["b1"])
        #expect(try await store.revokeShare(id: "s1", user: alice[0].userID, now: Date()).isEmpty)
        #expect(try await store.usage(user: alice[0].userID) == 0)
        #expect(try await store.referenceAudit().isEmpty)

        // Unlimited, until it expires: the sweep releases it and the count refuses.
        let second = try await fixture.finishedUpload(alice[0])
        _ = try await store.createShare(id: "s2", upload: second, blobID: "b2", owner: alice[0], expires: now.addingTimeInterval(60),
                                        maxDownloads: nil, now: now)
        for _ in 0..<3 {
            #expect(try await store.countShareDownload(id: "s2", size: { $0.size }, address: "a", resume: nil, now: now).admitted)
        }
        #expect(try await store.expireShares(now: now.addingTimeInterval(30)).isEmpty)
        #expect(try await fixture.referencesHold())
        #expect(try await store.expireShares(now: now.addingTimeInterval(61)) == ["b2"])
        #expect(try await !store.countShareDownload(id: "s2", size: { $0.size }, address: "a", resume: nil, now: now.addingTimeInterval(62)).admitted)
        #expect(try await store.referenceAudit().isEmpty)
        // Another user's link is not found for them; an unknown one is not found.
        let bob = try await fixture.user("bob@acme.example")
        await #expect(throws: StoreError.self) { try await store.revokeShare(id: "s2", user: bob[0].userID, now: Date()) }
        await #expect(throws: StoreError.self) { try await store.publicShare(id: "nope", now: Date()) }
        #expect(try await store.shares(user: bob[0].userID).isEmpty)
    }

    @Test("a counted download goes on with its token's hash, not counted again, after the link is used up: not with another hash, after 24 h, or once revoked or expired", arguments: Backend.allCases)
    func resumedDownload(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")
        let now = Date()
        let day: TimeInterval = 24 * 3600
        for (id, blob) in [("r1", "rb1"), ("r2", "rb2")] {
            let upload = try await fixture.finishedUpload(alice[0], length: 10)
            _ = try await store.createShare(id: id, upload: upload, blobID: blob, owner: alice[0], expires: now.addingTimeInterval(3 * day),
                                            maxDownloads: 1, now: now)
            #expect(try await store.countShareDownload(id: id, size: { $0.size }, address: "a", resume: "hash-" + id, now: now).admitted)
            #expect(try await !store.countShareDownload(id: id, size: { $0.size }, address: "a", resume: "other", now: now).admitted)
        }
        let later = now.addingTimeInterval(day - 60)
        #expect(try await store.resumeShareDownload(id: "r1", resume: "hash-r1", within: day, now: later).admitted)
        #expect(try await store.resumeShareDownload(id: "r1", resume: "hash-r1", within: day, now: later).admitted, "again")
        #expect(try await !store.resumeShareDownload(id: "r1", resume: "hash-r2", within: day, now: later).admitted, "another link's")
        #expect(try await !store.resumeShareDownload(id: "r1", resume: "other", within: day, now: later).admitted, "refused one's")
        #expect(try await !store.resumeShareDownload(id: "r1", resume: "hash-r1", within: day, now: now.addingTimeInterval(day + 1)).admitted)
        // Not counted or logged again.
        let listed = try await store.shares(user: alice[0].userID)
        #expect(listed.map(\.downloads.count) == [1, 1])
        _ = try await store.revokeShare(id: "r2", user: alice[0].userID, now: later)
        #expect(try await !store.resumeShareDownload(id: "r2", resume: "hash-r2", within: day, now: later).admitted, "revoked")
        #expect(try await store.expireShares(now: now.addingTimeInterval(3 * day + 1)) == ["rb1"])
        #expect(try await !store.resumeShareDownload(id: "r1", resume: "hash-r1", within: 4 * day, now: now.addingTimeInterval(3 * day + 2)).admitted,
                "expired")
        await #expect(throws: StoreError.self) { try await store.resumeShareDownload(id: "nope", resume: "x", within: day, now: now) }
        #expect(try await store.referenceAudit().isEmpty)
    }

    @Test("a removed user's links go with their blobs; gc counts a live link's reference")
    func removalAndGarbage() async throws {
        let fixture = try await StoreFixture.make(.sqlite)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example")
        let upload = try await fixture.finishedUpload(alice[0])
        _ = try await store.createShare(id: "s1", upload: upload, blobID: "b1", owner: alice[0], expires: Date().addingTimeInterval(60),
                                        maxDownloads: nil, now: Date())
        let (report, delete) = try await store.collectGarbage(files: ["b1"], fileExists: { _ in true }, eventsBefore: .distantPast, now: Date())
        #expect(delete.isEmpty && report.releasedBlobs == 0)
        let removed = try await store.removeUser(email: "alice@acme.example", now: Date())
        #expect(removed.blobs == ["b1"])
        #expect(try await store.referenceAudit().isEmpty)
    }

    /// Makes a link of `content` through the routes; returns it.
    func makeShare(_ client: TestClient, _ content: [UInt8], token: String, json extra: String = "") async throws -> Share {
        let upload = try await client.upload(content, token: token)
        let created = try await client.request(.post, RelayPaths.shares, token: token, json: #"{"upload":"\#(upload)"\#(extra)}"#)
        #expect(created.status == .created)
        let share = try decode(Share.self, created)
        #expect(created.headers[.location] == RelayPaths.shareLink(share.id))
        return share
    }

    @Test("GET /s/ID without a token: the ciphertext with Range; --downloads 1 of 20 parallel GETs is one 200 and 19 410; HEAD counts nothing")
    func routes() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let content = randomBytes(100_000)
            let share = try await makeShare(client, content, token: alice.token, json: #","downloads":1"#)
            #expect(share.maxDownloads == 1 && share.size == 100_000)
            let head = try await client.request(.head, RelayPaths.shareLink(share.id))
            #expect(head.status == .ok && head.headers[.contentLength] == "100000")
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, [UInt8]).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let answer = try await client.request(.get, RelayPaths.shareLink(share.id))
                        return (answer.status, bodyBytes(answer))
                    }
                }
                return try await group.reduce(into: [(HTTPResponse.Status, [UInt8])]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == .ok }.count == 1)
            #expect(statuses.filter { $0.0 == .gone }.count == 19)
            #expect(statuses.first { $0.0 == .ok }?.1 == content)
            let gone = try await client.request(.get, RelayPaths.shareLink(share.id))
            #expect(gone.status == .gone && errorCode(gone) == "gone")
            #expect(try await client.request(.head, RelayPaths.shareLink(share.id)).status == .gone)
            #expect(try await client.request(.get, RelayPaths.shareLink("0123456789abcdef0123456789abcdef")).status == .notFound)

            // Range, logged with the bytes it got; the owner sees each download.
            let open = try await makeShare(client, content, token: alice.token)
            let part = try await client.request(.get, RelayPaths.shareLink(open.id), headers: [.range: "bytes=10-19"])
            #expect(part.status == .partialContent && bodyBytes(part) == Array(content[10..<20]))
            let listed = try decode([Share].self, try await client.request(.get, RelayPaths.shares, token: alice.token))
            #expect(listed.map(\.id) == [share.id, open.id])
            #expect(listed[0].downloads.map(\.size) == [100_000])
            #expect(listed[1].downloads.map(\.size) == [10])
            // Listing and revoking need the token; another user's link is 404 to them.
            #expect(try await client.request(.get, RelayPaths.shares).status == .unauthorized)
            let bob = try await client.user("bob@acme.example", org: "acme")
            #expect(try await client.request(.delete, RelayPaths.share(open.id), token: bob.token).status == .notFound)
            #expect(fixture.blobFiles().count == 2)
            #expect(try await client.request(.delete, RelayPaths.share(open.id), token: alice.token).status == .noContent)
            #expect(try await client.request(.get, RelayPaths.shareLink(open.id)).status == .gone)
            #expect(fixture.blobFiles().count == 1)
            // Bad requests: a limit of 0, an expiry past the relay's longest.
            let upload = try await client.upload(content, token: alice.token)
            #expect(try await client.request(.post, RelayPaths.shares, token: alice.token,
                                             json: #"{"upload":"\#(upload)","downloads":0}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.shares, token: alice.token,
                                             json: #"{"upload":"\#(upload)","expires":"2099-01-01T00:00:00Z"}"#).status == .badRequest)
        }
    }
}

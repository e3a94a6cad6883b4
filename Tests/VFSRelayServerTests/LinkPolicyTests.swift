import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// An organisation's link settings (issue 51, item 5): stored and audited on both engines,
/// applied by the link routes, and the links on the admin page.
@Suite("link settings")
struct LinkPolicyTests {
    @Test("the settings round-trip with an audit entry; the organisation's links and requests are listed with their state and an admin revokes one (its blob released, audited); another organisation's is not found", arguments: Backend.allCases)
    func storeAndAdmin(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let olga = try await fixture.user("olga@globex.example", org: "globex")
        let org = alice[0].orgID
        #expect(try await store.linkPolicy(org: org) == .open)
        let set = LinkPolicy(allowed: true, maxExpiry: 7 * 86400, maxDownloads: 10, maxSize: 1 << 20)
        try await store.setLinkPolicy(org: org, policy: set, now: Date())
        #expect(try await store.linkPolicy(org: org) == set)
        #expect(try await store.linkPolicy(org: olga[0].orgID) == .open)
        try await store.setLinkPolicy(org: org, policy: LinkPolicy(allowed: false), now: Date())
        #expect(try await store.linkPolicy(org: org) == LinkPolicy(allowed: false))
        try await store.setLinkPolicy(org: org, policy: .open, now: Date())
        #expect(try await store.linkPolicy(org: org) == .open)
        let audit = try await store.auditLog(org: org, matching: "org.links", limit: 10)
        #expect(audit.map(\.detail) == ["links on", "links off", "links on, longest expiry 604800 s, at most 10 download(s), at most 1048576 bytes"])

        let now = Date()
        let upload = try await fixture.finishedUpload(alice[0], length: 10)
        _ = try await store.createShare(id: "s1", upload: upload, blobID: "b1", owner: alice[0], expires: now.addingTimeInterval(3600),
                                        maxDownloads: 2, now: now)
        #expect(try await store.countShareDownload(id: "s1", size: { $0.size }, address: "a", resume: nil, now: now).admitted)
        _ = try await store.createFileRequest(id: "r1", owner: alice[0], devices: [alice[1].deviceID], recipients: [try #require(
            try await store.devices(user: alice[0].userID).first { $0.id == alice[1].deviceID }?.recipient)],
                                              expires: now.addingTimeInterval(60), maxUploads: nil, now: now.addingTimeInterval(1))
        let other = try await fixture.finishedUpload(olga[0])
        _ = try await store.createShare(id: "s9", upload: other, blobID: "b9", owner: olga[0], expires: now.addingTimeInterval(3600),
                                        maxDownloads: nil, now: now)
        var links = try await store.organisationLinks(org: org, now: now.addingTimeInterval(2))
        #expect(links.map(\.id) == ["r1", "s1"])
        #expect(links.map(\.kind) == [.request, .share])
        #expect(links[1].owner == "alice@acme.example" && links[1].size == 10 && links[1].used == 1 && links[1].limit == 2)
        #expect(links.map(\.state) == ["live", "live"])
        #expect(try await store.organisationLinks(org: org, now: now.addingTimeInterval(120)).map(\.state) == ["expired", "live"])

        // Another organisation's link is not the admin's to revoke.
        await #expect(throws: StoreError.self) {
            try await store.adminRevokeLink(id: "s9", org: org, actor: "ann@acme.example", now: Date())
        }
        #expect(try await store.adminRevokeLink(id: "s1", org: org, actor: "ann@acme.example", now: Date()) == ["b1"])
        #expect(try await store.adminRevokeLink(id: "s1", org: org, actor: "ann@acme.example", now: Date()).isEmpty)
        #expect(try await store.adminRevokeLink(id: "r1", org: org, actor: "ann@acme.example", now: Date()).isEmpty)
        #expect(try await !store.countShareDownload(id: "s1", size: { $0.size }, address: "a", resume: nil, now: Date()).admitted)
        #expect(try await !store.publicFileRequest(id: "r1", now: Date()).live)
        links = try await store.organisationLinks(org: org, now: Date())
        #expect(links.map(\.state) == ["revoked", "revoked"])
        let revokes = try await store.auditLog(org: org, matching: "by an administrator", limit: 10)
        #expect(Set(revokes.map(\.action)) == ["share.revoke", "request.revoke"] && revokes.allSatisfy { $0.actor == "ann@acme.example" })
        #expect(try await fixture.referencesHold())
    }

    static func setPolicy(_ fixture: RelayFixture, _ policy: LinkPolicy, org: String = "acme") async throws {
        try await fixture.store.setLinkPolicy(org: try await fixture.store.organisationID(name: org), policy: policy, now: Date())
    }

    @Test("the routes apply the settings: off is 403 link_policy for links and requests; past the longest expiry, the most downloads or the size cap is 403; a link that names none gets the limits; a request's file past the cap is 413; GET /v1/link-policy tells a device")
    func routes() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let olga = try await client.user("olga@globex.example", org: "globex")
            let open = try decode(LinkPolicy.self, try await client.request(.get, RelayPaths.linkPolicy, token: alice.token))
            #expect(open == .open)
            #expect(try await client.request(.get, RelayPaths.linkPolicy).status == .unauthorized)

            let policy = LinkPolicy(allowed: true, maxExpiry: 86400, maxDownloads: 3, maxSize: 1000)
            try await Self.setPolicy(fixture, policy)
            #expect(try decode(LinkPolicy.self, try await client.request(.get, RelayPaths.linkPolicy, token: alice.token)) == policy)
            #expect(try decode(LinkPolicy.self, try await client.request(.get, RelayPaths.linkPolicy, token: olga.token)) == .open)

            func create(_ token: String, size: Int, _ extra: String = "") async throws -> TestResponse {
                let upload = try await client.upload(randomBytes(size), token: token)
                return try await client.request(.post, RelayPaths.shares, token: token, json: #"{"upload":"\#(upload)"\#(extra)}"#)
            }
            // Nothing named: the organisation's limits.
            let before = Date()
            let made = try await create(alice.token, size: 1000)
            #expect(made.status == .created, "\(errorMessage(made) ?? "")")
            let share = try decode(Share.self, made)
            #expect(share.maxDownloads == 3)
            #expect(share.expires <= Date().addingTimeInterval(86400) && share.expires >= before.addingTimeInterval(86400 - 60))
            // Within them: kept as asked.
            let asked = try decode(Share.self, try await create(alice.token, size: 10, #","downloads":2"#))
            #expect(asked.maxDownloads == 2)
            // Past them: refused, and the upload is not taken.
            let blobs = fixture.blobFiles().count
            for (size, extra) in [(1001, ""), (10, #","downloads":4"#), (10, #","expires":"\#(ISO8601DateFormatter().string(from: Date().addingTimeInterval(2 * 86400)))""#)] {
                let answer = try await create(alice.token, size: size, extra)
                #expect(answer.status == .forbidden && errorCode(answer) == "link_policy", "\(size) \(extra): \(answer.status)")
            }
            #expect(fixture.blobFiles().count == blobs)
            // Another organisation keeps the relay's limits.
            #expect(try await create(olga.token, size: 5000, #","downloads":50"#).status == .created)

            // A file request (to a device with a known X25519 recipient): its file past the cap is 413, one within it delivered.
            let desk = try await FileRequestTests().device(client, of: "alice@acme.example", name: "desk", recipient: FileRequestTests.recipients[0])
            let requestBody = #"{"devices":["\#(desk.id)"],"recipients":["\#(FileRequestTests.recipients[0])"]}"#
            let request = try await client.request(.post, RelayPaths.fileRequests, token: alice.token, json: requestBody)
            #expect(request.status == .created, "\(errorMessage(request) ?? "")")
            let filed = try decode(FileRequest.self, request)
            #expect(filed.expires <= Date().addingTimeInterval(86400))
            let big = try await client.request(.put, RelayPaths.requestLink(filed.id), bytes: FileRequestTests.ageFile(["X25519"], payload: randomBytes(2000)))
            #expect(big.status == .contentTooLarge, "\(big.status)")
            let small = try await client.request(.put, RelayPaths.requestLink(filed.id), bytes: FileRequestTests.ageFile(["X25519"], payload: randomBytes(100)))
            #expect(small.status == .created, "\(errorMessage(small) ?? "")")

            // Off: no new link or request, for the organisation's users only; links made before still work.
            try await Self.setPolicy(fixture, LinkPolicy(allowed: false))
            let off = try await create(alice.token, size: 10)
            #expect(off.status == .forbidden && errorCode(off) == "link_policy")
            #expect(errorMessage(off)?.contains("does not allow share links") == true)
            let refused = try await client.request(.post, RelayPaths.fileRequests, token: alice.token, json: requestBody)
            #expect(refused.status == .forbidden && errorCode(refused) == "link_policy")
            #expect(try await client.request(.get, RelayPaths.shareLink(share.id)).status == .ok)
            #expect(try await create(olga.token, size: 10).status == .created)
        }
    }

    @Test("the admin page lists the organisation's links and file requests (not another's); revoke needs the CSRF token, makes the link 410 and is in the audit log")
    func adminPage() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            let max = try await client.user("max@acme.example", org: "acme", device: "phone")
            let olga = try await client.user("olga@globex.example", org: "globex")
            func share(_ token: String) async throws -> Share {
                let upload = try await client.upload(randomBytes(100), token: token)
                return try decode(Share.self, try await client.request(.post, RelayPaths.shares, token: token, json: #"{"upload":"\#(upload)","downloads":5}"#))
            }
            let mine = try await share(max.token)
            let theirs = try await share(olga.token)
            var browser = AdminBrowser(client)
            try await browser.signIn(try await fixture.loginCode(for: "ann@acme.example"))
            let page = text(try await browser.get("/admin/links"))
            #expect(page.contains(mine.id) && !page.contains(theirs.id))
            #expect(page.contains("max@acme.example (phone)") && page.contains("0 of 5") && page.contains("Revoke link \(mine.id)"))
            #expect(try await browser.post("/admin/links/\(mine.id)/revoke", []).status == .forbidden)
            #expect(try await client.request(.get, RelayPaths.shareLink(mine.id)).status == .ok)
            let token = try await browser.csrf()
            #expect(try await browser.post("/admin/links/\(theirs.id)/revoke", [("csrf", token)]).status == .notFound)
            let done = try await browser.post("/admin/links/\(mine.id)/revoke", [("csrf", token)])
            #expect(done.status == .seeOther && done.headers[.location] == "/admin/links?revoked=\(mine.id)")
            #expect(try await client.request(.get, RelayPaths.shareLink(mine.id)).status == .gone)
            #expect(try await client.request(.get, RelayPaths.shareLink(theirs.id)).status == .ok)
            let after = text(try await browser.get("/admin/links?revoked=\(mine.id)"))
            #expect(after.contains("Revoked \(mine.id).") && after.contains("revoked") && !after.contains("Revoke link \(mine.id)"))
            let audit = text(try await browser.get("/admin/audit?q=share.revoke"))
            #expect(audit.contains(mine.id) && audit.contains("by an administrator"))
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSPolicyModel
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("policy items")
struct ItemTests {
    @Test("admins write, members read, per organisation; /items is an alias; changes are audited and announced")
    func items() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            let member = try await client.user("max@acme.example", org: "acme")
            let other = try await client.user("olga@globex.example", org: "globex", admin: true)

            let created = try await client.request(.post, RelayPaths.items, token: admin.token,
                                                   json: #"{"app":"evince","types":["pdf"],"groups":["legal"]}"#)
            #expect(created.status == .created)
            let item = try decode(PolicyItem.self, created)
            #expect(item.app == "evince" && item.types == ["pdf"] && item.enabled && item.name == "")
            #expect(item.id.count == 8)
            let etag = try #require(created.headers[.eTag])

            #expect(try await client.request(.post, RelayPaths.items, token: member.token, json: #"{"app":"gimp"}"#).status == .forbidden)
            #expect(try await client.request(.post, RelayPaths.items, token: admin.token, json: #"{"app":"evince"}"#).status == .conflict)
            #expect(try await client.request(.post, RelayPaths.items, token: admin.token, json: #"{"app":"-x"}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.items, token: admin.token,
                                             json: #"{"app":"gimp","types":["PDF"]}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.items, token: admin.token,
                                             json: #"{"app":"gimp","id":"abc"}"#).status == .badRequest)

            for path in [RelayPaths.items, RelayPaths.legacyItems] {
                let list = try decode([PolicyItem].self, try await client.request(.get, path, token: member.token))
                #expect(list.map(\.id) == [item.id])
            }
            // Another organisation sees none of it.
            #expect(try decode([PolicyItem].self, try await client.request(.get, RelayPaths.items, token: other.token)).isEmpty)
            for method: HTTPRequest.Method in [.get, .delete] {
                #expect(try await client.request(method, RelayPaths.item(item.id), token: other.token).status == .notFound)
            }
            #expect(try await client.request(.put, RelayPaths.item(item.id), token: other.token, json: #"{"app":"x"}"#).status == .notFound)

            // Optimistic concurrency.
            let shown = try await client.request(.get, "/items/\(item.id)", token: member.token)
            #expect(shown.headers[.eTag] == etag)
            let updated = try await client.request(.put, RelayPaths.item(item.id), token: admin.token,
                                                   json: #"{"app":"evince","types":["pdf","djvu"]}"#, headers: [.ifMatch: etag])
            #expect(updated.status == .ok)
            let newTag = try #require(updated.headers[.eTag])
            #expect(newTag != etag)
            #expect(try decode(PolicyItem.self, updated).created == item.created)
            let stale = try await client.request(.put, RelayPaths.item(item.id), token: admin.token,
                                                 json: #"{"app":"evince"}"#, headers: [.ifMatch: etag])
            #expect(stale.status == .preconditionFailed)
            #expect(errorCode(stale) == "precondition_failed")
            // A request wrong in itself is 400 whatever its If-Match (issue 45, item 7): no
            // body, or a body that is not an item.
            let empty = try await client.request(.put, RelayPaths.item(item.id), token: admin.token, headers: [.ifMatch: etag])
            #expect(empty.status == .badRequest)
            #expect(try await client.request(.put, RelayPaths.item(item.id), token: admin.token, json: "{",
                                             headers: [.ifMatch: etag]).status == .badRequest)
            #expect(try await client.request(.delete, RelayPaths.item(item.id), token: admin.token,
                                             headers: [.ifMatch: etag]).status == .preconditionFailed)
            #expect(try await client.request(.delete, "/items/\(item.id)", token: member.token).status == .forbidden)
            #expect(try await client.request(.delete, "/items/\(item.id)", token: admin.token, headers: [.ifMatch: newTag]).status == .noContent)
            #expect(try await client.request(.get, RelayPaths.item(item.id), token: admin.token).status == .notFound)
        }
        let audit = try await fixture.store.pool.read { db in try String.fetchAll(db, sql: "SELECT action FROM audit WHERE action LIKE 'item.%'") }
        #expect(audit == ["item.add", "item.update", "item.delete"])
        // Each change: one policy event to each of acme's two devices, none to globex.
        let policyEvents = try await fixture.store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events WHERE kind = 'policy'") ?? 0
        }
        #expect(policyEvents == 6)
    }

    @Test("times in a body are read as RFC 3339 says: a fraction, any offset, lower-case t and z")
    func rfc3339Times() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            for (app, expires, seconds) in [("a1", "2035-10-27T21:26:25.8+23:46", 2_077_047_625.0),
                                            ("a2", "2035-10-27t00:00:00z", 2_077_056_000.0),
                                            ("a3", "2035-10-27T00:00:00.123456789-01:30", 2_077_061_400.0)] {
                let created = try await client.request(.post, RelayPaths.items, token: admin.token,
                                                       json: #"{"app":"\#(app)","expires":"\#(expires)"}"#)
                #expect(created.status == .created, "\(expires)")
                if created.status == .created {
                    #expect(try decode(PolicyItem.self, created).expires?.timeIntervalSince1970 == seconds, "\(expires)")
                }
            }
            for wrong in ["2035-10-27", "2035-10-27T24:00:00Z", "2035-02-30T00:00:00Z", "2035-10-27T00:00:00+24:00"] {
                let refused = try await client.request(.post, RelayPaths.items, token: admin.token,
                                                       json: #"{"app":"b","expires":"\#(wrong)"}"#)
                #expect(refused.status == .badRequest, "\(wrong)")
            }
        }
    }

    @Test("the item list follows every change, also one written to the shared database by another relay instance")
    func listFollowsChanges() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            func apps() async throws -> [String] {
                try decode([PolicyItem].self, try await client.request(.get, RelayPaths.items, token: admin.token)).map(\.app)
            }
            #expect(try await apps() == [])
            let created = try await client.request(.post, RelayPaths.items, token: admin.token, json: #"{"app":"evince"}"#)
            let id = try decode(PolicyItem.self, created).id
            #expect(try await apps() == ["evince"])
            #expect(try await apps() == ["evince"])   // now answered from the kept list

            // Another instance on the same database: this relay's kept list must not hide it.
            let actor = try #require(try await fixture.store.authenticate(tokenHash: Secrets.hash(admin.token), now: Date()))
            _ = try await fixture.store.updateItem(id: id, ItemDraft(app: "okular"), ifVersion: nil, actor: actor, now: Date())
            #expect(try await apps() == ["okular"])
            _ = try await fixture.store.createItem(ItemDraft(app: "zathura"), id: "0000beef", actor: actor, now: Date())
            #expect(try await apps() == ["okular", "zathura"])
            try await fixture.store.deleteItem(id: id, ifVersion: nil, actor: actor, now: Date())
            #expect(try await apps() == ["zathura"])
        }
    }
}

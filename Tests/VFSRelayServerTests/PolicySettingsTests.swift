import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSPolicyModel
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("policy settings")
struct PolicySettingsTests {
    @Test("the offline grace: 72 h by default, admins change it, everyone reads it, and it comes with the list")
    func grace() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            let member = try await client.user("max@acme.example", org: "acme")
            let other = try await client.user("olga@globex.example", org: "globex", admin: true)
            let graceHeader = try #require(HTTPField.Name(PolicyListHeaders.grace))

            func settings(_ token: String) async throws -> PolicySettings {
                try decode(PolicySettings.self, try await client.request(.get, RelayPaths.policySettings, token: token))
            }
            #expect(try await settings(member.token).graceSeconds == 72 * 3600)
            let before = try await client.request(.get, RelayPaths.items, token: member.token)
            #expect(before.headers[graceHeader] == "259200")
            let revisionBefore = try #require(before.headers[.eTag])
            #expect(revisionBefore.hasPrefix("\"r") && revisionBefore.hasSuffix("\""))

            // Members can't change it; bad values are refused; unknown keys too.
            #expect(try await client.request(.put, RelayPaths.policySettings, token: member.token,
                                             json: #"{"graceSeconds":3600}"#).status == .forbidden)
            for bad in [#"{"graceSeconds":59}"#, #"{"graceSeconds":31622401}"#, #"{"graceSeconds":"1h"}"#,
                        #"{"graceSeconds":3600,"x":1}"#, #"{}"#] {
                let answer = try await client.request(.put, RelayPaths.policySettings, token: admin.token, json: bad)
                #expect(answer.status == .badRequest, "\(bad)")
            }
            #expect(try await client.request(.get, RelayPaths.policySettings).status == .unauthorized)

            let set = try await client.request(.put, RelayPaths.policySettings, token: admin.token, json: #"{"graceSeconds":3600}"#)
            #expect(set.status == .ok)
            #expect(try decode(PolicySettings.self, set).graceSeconds == 3600)
            #expect(try await settings(member.token).graceSeconds == 3600)
            // The kept list is not served with the old grace: the change bumps the revision.
            let after = try await client.request(.get, RelayPaths.items, token: member.token)
            #expect(after.headers[graceHeader] == "3600")
            #expect(after.headers[.eTag] != revisionBefore)
            // Another organisation keeps its own.
            #expect(try await settings(other.token).graceSeconds == 72 * 3600)
            #expect(try await client.request(.get, RelayPaths.items, token: other.token).headers[graceHeader] == "259200")
        }
        // Audited, and announced to acme's two devices only.
        let audit = try await fixture.store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT detail FROM audit WHERE action = 'policy.grace'")
        }
        #expect(audit == ["3600"])
        let events = try await fixture.store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT data FROM events WHERE kind = 'policy'")
        }
        #expect(events == [#"{"change":"settings"}"#, #"{"change":"settings"}"#])
    }

    @Test("store: policyGrace and setPolicyGrace per organisation, nil back to the default, revision bumped")
    func store() async throws {
        let fixture = try RelayFixture()
        let store = fixture.store
        try await store.createOrganisation(name: "acme", now: Date())
        try await store.createOrganisation(name: "globex", now: Date())
        try await store.createUser(email: "ann@acme.example", organisation: "acme", admin: true, now: Date())
        let org = try await store.pool.read { db in try #require(try Int64.fetchOne(db, sql: "SELECT id FROM organisations WHERE name = 'acme'")) }
        let globex = try await store.pool.read { db in try #require(try Int64.fetchOne(db, sql: "SELECT id FROM organisations WHERE name = 'globex'")) }
        let actor = DeviceIdentity(deviceID: "d", userID: 1, orgID: org, email: "ann@acme.example", isAdmin: true)

        #expect(try await store.policyGrace(org: org) == nil)
        let revision = try await store.itemsRevision(org: org)
        try await store.setPolicyGrace(org: org, seconds: 7200, actor: actor, now: Date())
        #expect(try await store.policyGrace(org: org) == 7200)
        #expect(try await store.policyGrace(org: globex) == nil)
        #expect(try await store.itemsRevision(org: org) == revision + 1)
        #expect(try await store.itemsRevision(org: globex) == 0)
        try await store.setPolicyGrace(org: org, seconds: nil, actor: actor, now: Date())
        #expect(try await store.policyGrace(org: org) == nil)
        #expect(try await store.itemsRevision(org: org) == revision + 2)
    }
}

import Foundation
import Testing
import VFSRelayProtocol
import VFSTestSupport
@testable import VFSRelayServer

/// Issue 28 in the store, on both back-ends: a transfer to another user's devices stays
/// in the organisation, skips nobody's disabled state, counts against the sender; an
/// organisation's groups of people and their members.
@Suite("relay store: people (SQLite and PostgreSQL)", .serialized)
struct PeopleStoreTests {
    @Test("a transfer to another user's devices: same organisation only, not to a disabled user, in the sender's usage", arguments: Backend.allCases)
    func transfersToPeople(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 1)
        let bob = try await fixture.user("bob@acme.example", devices: 2)
        let carol = try await fixture.user("carol@other.example", org: "other", devices: 1)
        let expires = Date().addingTimeInterval(3600)
        let entry = try await store.createTransfer(
            id: "t1", upload: try await fixture.finishedUpload(alice[0], length: 10), blobID: "b1", sender: alice[0], devices: [],
            groups: [], users: [UserTarget(user: "bob@acme.example", devices: bob.map(\.deviceID))], expires: expires, now: Date())
        #expect(Set(entry.recipients.map(\.device)) == Set(bob.map(\.deviceID)))
        #expect(entry.recipients.allSatisfy { $0.user == "bob@acme.example" })
        #expect(try await store.inbox(device: bob[1].deviceID).first?.senderUser == "alice@acme.example")
        #expect(try await store.usage(user: alice[0].userID) == 10)
        #expect(try await store.usage(user: bob[0].userID) == 0)

        await #expect(throws: StoreError.notFound("no such user in your organisation: \"carol@other.example\"")) {
            try await store.createTransfer(
                id: "t2", upload: try await fixture.finishedUpload(alice[0]), blobID: "b2", sender: alice[0], devices: [], groups: [],
                users: [UserTarget(user: "carol@other.example", devices: [carol[0].deviceID])], expires: expires, now: Date())
        }
        // A device of another user named as bob's.
        await #expect(throws: StoreError.self) {
            try await store.createTransfer(
                id: "t3", upload: try await fixture.finishedUpload(alice[0]), blobID: "b3", sender: alice[0], devices: [], groups: [],
                users: [UserTarget(user: "bob@acme.example", devices: [carol[0].deviceID])], expires: expires, now: Date())
        }
        #expect(try await store.inbox(device: carol[0].deviceID).isEmpty)
        try await store.setUser(email: "bob@acme.example", admin: nil, disabled: true, now: Date())
        await #expect(throws: StoreError.notFound("\"bob@acme.example\" is disabled: they receive nothing new")) {
            try await store.createTransfer(
                id: "t4", upload: try await fixture.finishedUpload(alice[0]), blobID: "b4", sender: alice[0], devices: [], groups: [],
                users: [UserTarget(user: "bob@acme.example", devices: bob.map(\.deviceID))], expires: expires, now: Date())
        }
    }

    @Test("an organisation's groups of people: add, members of the organisation only, remove; listed per member", arguments: Backend.allCases)
    func orgGroups(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 1)
        _ = try await fixture.user("bob@acme.example", devices: 1)
        _ = try await fixture.user("carol@other.example", org: "other", devices: 1)
        let acme = try await store.organisationID(name: "acme")
        let other = try await store.organisationID(name: "other")
        #expect(try await store.createOrgGroup(org: acme, name: "team", actor: "operator", now: Date()) == OrgGroup(name: "team", members: []))
        await #expect(throws: StoreError.conflict("a group of people \"team\" exists already")) {
            try await store.createOrgGroup(org: acme, name: "team", actor: "operator", now: Date())
        }
        _ = try await store.createOrgGroup(org: other, name: "team", actor: "operator", now: Date())
        for email in ["bob@acme.example", "alice@acme.example", "bob@acme.example"] {
            _ = try await store.changeOrgGroupMember(org: acme, group: "team", email: email, add: true, actor: "operator", now: Date())
        }
        #expect(try await store.orgGroup(org: acme, name: "team").members == ["alice@acme.example", "bob@acme.example"])
        await #expect(throws: StoreError.notFound("no such user in your organisation: \"carol@other.example\"")) {
            try await store.changeOrgGroupMember(org: acme, group: "team", email: "carol@other.example", add: true, actor: "operator", now: Date())
        }
        #expect(try await store.orgGroup(org: other, name: "team").members.isEmpty)
        _ = try await store.createOrgGroup(org: acme, name: "ops", actor: "operator", now: Date())
        #expect(try await store.orgGroups(org: acme, member: nil).map(\.name) == ["ops", "team"])
        #expect(try await store.orgGroups(org: acme, member: alice[0].userID).map(\.name) == ["team"])
        let removed = try await store.changeOrgGroupMember(org: acme, group: "team", email: "alice@acme.example", add: false,
                                                           actor: "operator", now: Date())
        #expect(removed.members == ["bob@acme.example"])
        await #expect(throws: StoreError.notFound("\"alice@acme.example\" is not in the group \"team\"")) {
            try await store.changeOrgGroupMember(org: acme, group: "team", email: "alice@acme.example", add: false, actor: "operator", now: Date())
        }
        await #expect(throws: StoreError.notFound("no group of people \"nope\"")) { try await store.orgGroup(org: acme, name: "nope") }
        // A removed user leaves every group.
        _ = try await store.removeUser(email: "bob@acme.example", now: Date())
        #expect(try await store.orgGroup(org: acme, name: "team").members.isEmpty)
    }

    @Test("the organisation's users: its own only, sorted, a disabled user left out", arguments: Backend.allCases)
    func orgUsers(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        _ = try await fixture.user("bob@acme.example", devices: 1)
        _ = try await fixture.user("alice@acme.example", devices: 1)
        _ = try await fixture.user("dave@acme.example", devices: 0)
        _ = try await fixture.user("carol@other.example", org: "other", devices: 1)
        let acme = try await store.organisationID(name: "acme")
        #expect(try await store.orgUsers(org: acme) == ["alice@acme.example", "bob@acme.example", "dave@acme.example"])
        #expect(try await store.orgUsers(org: try await store.organisationID(name: "other")) == ["carol@other.example"])
        try await store.setUser(email: "bob@acme.example", admin: nil, disabled: true, now: Date())
        #expect(try await store.orgUsers(org: acme) == ["alice@acme.example", "dave@acme.example"])
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("groups")
struct GroupTests {
    @Test("create, list, add and remove members, delete; own devices only, no duplicates")
    func lifecycle() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@acme.example", org: "acme")

            let created = try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                                   json: #"{"name":"mine","members":["\#(laptop.id)"]}"#)
            #expect(created.status == .created)
            #expect(try decode(DeviceGroup.self, created) == DeviceGroup(name: "mine", members: [laptop.id]))
            #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token, json: #"{"name":"mine"}"#).status == .conflict)
            #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                             json: #"{"name":"two","members":["\#(phone.id)","\#(phone.id)"]}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token, json: #"{"name":"bad name"}"#).status == .badRequest)
            // Bob's device cannot join alice's group: it does not exist for her.
            #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                             json: #"{"name":"other","members":["\#(bob.id)"]}"#).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.groupMember("mine", bob.id), token: laptop.token).status == .notFound)

            let added = try await client.request(.put, RelayPaths.groupMember("mine", phone.id), token: laptop.token)
            #expect(added.status == .ok)
            #expect(Set(try decode(DeviceGroup.self, added).members) == [laptop.id, phone.id])
            // Adding twice keeps one membership.
            let twice = try await client.request(.put, RelayPaths.groupMember("mine", phone.id), token: laptop.token)
            #expect(try decode(DeviceGroup.self, twice).members.count == 2)

            let list = try decode([DeviceGroup].self, try await client.request(.get, RelayPaths.groups, token: phone.token))
            #expect(list.map(\.name) == ["mine"])
            #expect(try await client.request(.get, RelayPaths.groups, token: bob.token).body.readableBytes == 2)
            for method: HTTPRequest.Method in [.get, .delete] {
                #expect(try await client.request(method, RelayPaths.group("mine"), token: bob.token).status == .notFound)
            }
            #expect(try await client.request(.delete, RelayPaths.groupMember("mine", phone.id), token: bob.token).status == .notFound)

            let removed = try await client.request(.delete, RelayPaths.groupMember("mine", phone.id), token: laptop.token)
            #expect(try decode(DeviceGroup.self, removed).members == [laptop.id])
            #expect(try await client.request(.delete, RelayPaths.groupMember("mine", phone.id), token: laptop.token).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.group("mine"), token: laptop.token).status == .noContent)
            #expect(try await client.request(.get, RelayPaths.group("mine"), token: laptop.token).status == .notFound)
        }
        let kinds = try await fixture.store.pool.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT kind FROM events") }
        #expect(kinds.contains("group"))
    }

    @Test("a device may be in many groups; logging it out takes it out of all of them")
    func manyGroups() async throws {
        try await RelayFixture().test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            for name in ["home", "work"] {
                #expect(try await client.request(.post, RelayPaths.groups, token: laptop.token,
                                                 json: #"{"name":"\#(name)","members":["\#(phone.id)","\#(laptop.id)"]}"#).status == .created)
            }
            let before = try decode([DeviceGroup].self, try await client.request(.get, RelayPaths.groups, token: laptop.token))
            #expect(before.allSatisfy { Set($0.members) == [laptop.id, phone.id] })
            #expect(try await client.request(.delete, RelayPaths.device(phone.id), token: laptop.token).status == .noContent)
            let after = try decode([DeviceGroup].self, try await client.request(.get, RelayPaths.groups, token: laptop.token))
            #expect(after.map(\.name) == ["home", "work"])
            #expect(after.allSatisfy { $0.members == [laptop.id] })
        }
    }
}

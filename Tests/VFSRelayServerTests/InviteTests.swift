import Foundation
import HTTPTypes
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("device invites")
struct InviteTests {
    @Test("POST /v1/invites: a code that enrols another device of the same user, once; 401 without a token")
    func invite() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            #expect(try await client.request(.post, RelayPaths.invites).status == .unauthorized)
            let answer = try await client.request(.post, RelayPaths.invites, token: laptop.token)
            #expect(answer.status == .created)
            let invite = try decode(Invite.self, answer)
            #expect(invite.expires > Date().addingTimeInterval(60))
            let phone = try await client.enroll(invite.code, name: "phone")
            let devices = try decode([Device].self, try await client.request(.get, RelayPaths.devices, token: laptop.token))
            #expect(Set(devices.map(\.id)) == [laptop.id, phone.id])
            #expect(try decode([Device].self, try await client.request(.get, RelayPaths.devices, token: bob.token)).map(\.id) == [bob.id])
            let again = try await client.request(.post, RelayPaths.enroll,
                                                 json: #"{"code":"\#(invite.code)","name":"x","platform":"linux","recipient":"age1x"}"#)
            #expect(again.status == .unauthorized)
        }
    }

    @Test("an unused invite dies with the device that made it; a used one, another device's and the operator's stay good")
    func inviteDiesWithDevice() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.enroll(try decode(Invite.self, try await client.request(.post, RelayPaths.invites, token: laptop.token)).code,
                                                name: "phone")
            let fromPhone = try decode(Invite.self, try await client.request(.post, RelayPaths.invites, token: phone.token))
            let fromLaptop = try decode(Invite.self, try await client.request(.post, RelayPaths.invites, token: laptop.token))
            let operatorCode = try await fixture.code(for: "alice@acme.example")
            #expect(try await client.request(.delete, RelayPaths.device(phone.id), token: laptop.token).status == .noContent)
            let dead = try await client.request(.post, RelayPaths.enroll,
                                                json: #"{"code":"\#(fromPhone.code)","name":"thief","platform":"linux","recipient":"age1thief"}"#)
            #expect(dead.status == .unauthorized)
            _ = try await client.enroll(fromLaptop.code, name: "tablet")
            _ = try await client.enroll(operatorCode, name: "desktop")
        }
    }
}

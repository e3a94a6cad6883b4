import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("organisation users")
struct OrgUsersRouteTests {
    @Test("GET /v1/org/users: any device of the organisation, its users only, sorted; prefix and limit; bad ones 400; no token 401")
    func list() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let max = try await client.user("max@acme.example", org: "acme")
            _ = try await client.user("ann@acme.example", org: "acme", admin: true)
            _ = try await client.user("mia@acme.example", org: "acme")
            let olga = try await client.user("olga@globex.example", org: "globex")
            func users(_ query: String, token: String) async throws -> [String] {
                let answer = try await client.request(.get, RelayPaths.orgUsers + query, token: token)
                #expect(answer.status == .ok, "\(query)")
                return try decode([OrgUser].self, answer).map(\.email)
            }
            // A member, not only an administrator, lists them (vfs-push --to completes from it).
            #expect(try await users("", token: max.token) == ["ann@acme.example", "max@acme.example", "mia@acme.example"])
            #expect(try await users("", token: olga.token) == ["olga@globex.example"])
            #expect(try await users("?prefix=m", token: max.token) == ["max@acme.example", "mia@acme.example"])
            #expect(try await users("?prefix=m&limit=1", token: max.token) == ["max@acme.example"])
            #expect(try await users("?prefix=olga", token: max.token).isEmpty, "another organisation's user is not listed")
            #expect(try await users("?prefix=" + String(repeating: "%C3%A9", count: 254), token: max.token).isEmpty)
            for bad in ["?limit=0", "?limit=1001", "?limit=x", "?prefix=" + String(repeating: "a", count: 255)] {
                let answer = try await client.request(.get, RelayPaths.orgUsers + bad, token: max.token)
                #expect(answer.status == .badRequest, "\(bad)")
            }
            #expect(try await client.request(.get, RelayPaths.orgUsers).status == .unauthorized)
            try await fixture.store.setUser(email: "mia@acme.example", admin: nil, disabled: true, now: Date())
            #expect(try await users("", token: max.token) == ["ann@acme.example", "max@acme.example"])
        }
    }
}

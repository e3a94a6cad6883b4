import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSPolicyModel
import VFSRelayProtocol
@testable import VFSRelayServer

/// Two organisations, two users each: every route tried on every other user's things.
@Suite("isolation matrix")
struct IsolationTests {
    /// What one user owns, with names unique to them so a leak would show.
    struct Holdings: Sendable {
        let email: String
        let org: String
        let device: TestDevice
        let group: String
        let unfinished: String
        let finished: String
        let transfer: String
        let folder: String
        let item: String?
        var secrets: [String] {
            [device.id, device.token, group, unfinished, finished, transfer, folder] + (item.map { [$0] } ?? [])
        }
    }

    func holdings(_ client: TestClient, _ n: Int, email: String, org: String, admin: Bool) async throws -> Holdings {
        let device = try await client.user(email, org: org, admin: admin, device: "dev\(n)")
        let group = "group-\(n)"
        #expect(try await client.request(.post, RelayPaths.groups, token: device.token,
                                         json: #"{"name":"\#(group)","members":["\#(device.id)"]}"#).status == .created)
        let created = try await client.request(.post, RelayPaths.uploads, token: device.token, headers: [tus: "1.0.0", uploadLength: "100"])
        let unfinished = String(try #require(created.headers[.location]).split(separator: "/").last!)
        let sent = try await client.upload(randomBytes(50), token: device.token)
        let transfer = try decode(OutboxEntry.self, try await client.request(.post, RelayPaths.transfers, token: device.token,
            json: #"{"upload":"\#(sent)","devices":["\#(device.id)"]}"#)).id
        let finished = try await client.upload(randomBytes(30), token: device.token)
        let folder = "folder-\(n)"
        #expect(try await client.request(.post, RelayPaths.cloud("/\(folder)"), token: device.token, json: #"{"kind":"folder"}"#).status == .created)
        let file = try await client.upload(randomBytes(20), token: device.token)
        #expect(try await client.request(.put, RelayPaths.cloud("/\(folder)/x"), token: device.token, json: #"{"upload":"\#(file)"}"#).status == .created)
        var item: String?
        if admin {
            let answer = try await client.request(.post, RelayPaths.items, token: device.token, json: #"{"app":"app-\#(n)"}"#)
            item = try decode(PolicyItem.self, answer).id
        }
        return Holdings(email: email, org: org, device: device, group: group, unfinished: unfinished, finished: finished,
                        transfer: transfer, folder: folder, item: item)
    }

    @Test("every route across users and organisations: 404, and no list shows another's things")
    func matrix() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            var users = [Holdings]()
            for (n, (email, org, admin)) in [("a1@acme.example", "acme", true), ("a2@acme.example", "acme", false),
                                             ("g1@globex.example", "globex", true), ("g2@globex.example", "globex", false)].enumerated() {
                users.append(try await holdings(client, n, email: email, org: org, admin: admin))
            }
            let tusHeaders: HTTPFields = [tus: "1.0.0"]
            var tried = 0
            for attacker in users {
                let token = attacker.device.token
                for victim in users where victim.email != attacker.email {
                    var attempts: [(HTTPRequest.Method, String, String?, HTTPFields)] = [
                        (.get, RelayPaths.device(victim.device.id), nil, [:]),
                        (.patch, RelayPaths.device(victim.device.id), #"{"name":"x"}"#, [:]),
                        (.delete, RelayPaths.device(victim.device.id), nil, [:]),
                        (.get, RelayPaths.group(victim.group), nil, [:]),
                        (.delete, RelayPaths.group(victim.group), nil, [:]),
                        (.put, RelayPaths.groupMember(victim.group, attacker.device.id), nil, [:]),
                        (.delete, RelayPaths.groupMember(victim.group, victim.device.id), nil, [:]),
                        (.put, RelayPaths.groupMember(attacker.group, victim.device.id), nil, [:]),
                        (.post, RelayPaths.groups, #"{"name":"steal","members":["\#(victim.device.id)"]}"#, [:]),
                        (.head, RelayPaths.upload(victim.unfinished), nil, tusHeaders),
                        (.delete, RelayPaths.upload(victim.unfinished), nil, tusHeaders),
                        (.patch, RelayPaths.upload(victim.unfinished), "{}", [tus: "1.0.0", uploadOffset: "0",
                                                                             .contentType: "application/offset+octet-stream"]),
                        (.post, RelayPaths.transfers, #"{"upload":"\#(victim.finished)","devices":["\#(attacker.device.id)"]}"#, [:]),
                        (.post, RelayPaths.transfers, #"{"upload":"\#(try await client.upload([1], token: token))","devices":["\#(victim.device.id)"]}"#, [:]),
                        (.post, RelayPaths.transfers, #"{"upload":"\#(try await client.upload([2], token: token))","groups":["\#(victim.group)"]}"#, [:]),
                        (.get, RelayPaths.transferContent(victim.transfer), nil, [:]),
                        (.post, RelayPaths.transferAck(victim.transfer), nil, [:]),
                        (.post, RelayPaths.transferDecline(victim.transfer), nil, [:]),
                        (.get, RelayPaths.cloud("/\(victim.folder)"), nil, [:]),
                        (.get, RelayPaths.cloud("/\(victim.folder)/x"), nil, [:]),
                        (.patch, RelayPaths.cloud("/\(victim.folder)"), #"{"to":"/mine"}"#, [:]),
                        (.delete, RelayPaths.cloud("/\(victim.folder)"), nil, [:]),
                        (.post, RelayPaths.cloud("/\(victim.folder)/sub"), #"{"kind":"folder"}"#, [:]),
                        (.put, RelayPaths.cloud("/mine-\(tried)"), #"{"upload":"\#(victim.finished)"}"#, [:]),
                    ]
                    if let item = victim.item, victim.org != attacker.org {
                        for base in [RelayPaths.items, RelayPaths.legacyItems] {
                            attempts += [(.get, "\(base)/\(item)", nil, [:]), (.put, "\(base)/\(item)", #"{"app":"x"}"#, [:]),
                                         (.delete, "\(base)/\(item)", nil, [:])]
                        }
                    }
                    for (method, path, json, headers) in attempts {
                        let response = try await client.request(method, path, token: token, json: json, headers: headers)
                        #expect(response.status == .notFound, "\(attacker.email) \(method) \(path) → \(response.status)")
                        let text = String(decoding: bodyBytes(response), as: UTF8.self)
                        // The answer may quote what was asked, nothing else of the victim's.
                        for secret in victim.secrets where secret.count > 8 && !path.contains(secret) && !(json ?? "").contains(secret) {
                            #expect(!text.contains(secret), "\(method) \(path) leaks \(secret)")
                        }
                        tried += 1
                    }
                }
                // Every list the attacker can read shows only their own things (and their organisation's items).
                for path in [RelayPaths.devices, RelayPaths.groups, RelayPaths.inbox, RelayPaths.outbox, RelayPaths.cloud,
                             RelayPaths.items, RelayPaths.legacyItems] {
                    let text = String(decoding: bodyBytes(try await client.request(.get, path, token: token)), as: UTF8.self)
                    for victim in users where victim.email != attacker.email {
                        for secret in victim.secrets where secret != victim.item || victim.org != attacker.org {
                            #expect(!text.contains(secret), "\(attacker.email) GET \(path) leaks \(victim.email)'s \(secret)")
                        }
                    }
                }
            }
            #expect(tried > 250)
            // Nothing of anyone changed.
            for user in users {
                let token = user.device.token
                #expect(try await client.request(.get, RelayPaths.device(user.device.id), token: token).status == .ok)
                #expect(try decode(DeviceGroup.self, try await client.request(.get, RelayPaths.group(user.group), token: token)).members
                        == [user.device.id])
                #expect(try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: token)).map(\.id) == [user.transfer])
                #expect(try await client.request(.head, RelayPaths.upload(user.unfinished), token: token,
                                                 headers: tusHeaders).headers[uploadOffset] == "0")
                #expect(try await client.request(.get, RelayPaths.cloud("/\(user.folder)/x"), token: token).status == .ok)
                if let item = user.item {
                    #expect(try decode(PolicyItem.self, try await client.request(.get, RelayPaths.item(item), token: token)).app != "x")
                }
            }
        }
    }
}

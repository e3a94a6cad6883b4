import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("hostile input")
struct RobustnessTests {
    @Test("every JSON route: malformed JSON, bad UTF-8, unknown fields, wrong types, null, empty → 400; oversize → 413; never 500")
    func bodies() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let admin = try await client.user("ann@acme.example", org: "acme", admin: true)
            let upload = try await client.upload([1, 2, 3], token: admin.token)
            _ = try await client.request(.post, RelayPaths.groups, token: admin.token, json: #"{"name":"g"}"#)
            _ = try await client.request(.post, RelayPaths.cloud("/f"), token: admin.token, json: #"{"kind":"folder"}"#)
            let item = try decode(ItemID.self,
                                  try await client.request(.post, RelayPaths.items, token: admin.token, json: #"{"app":"evince"}"#)).id
            let routes: [(HTTPRequest.Method, String)] = [
                (.post, RelayPaths.enroll), (.patch, RelayPaths.device(admin.id)), (.post, RelayPaths.groups),
                (.post, RelayPaths.transfers), (.post, RelayPaths.cloud("/f/new")), (.put, RelayPaths.cloud("/f/file")),
                (.patch, RelayPaths.cloud("/f")), (.post, RelayPaths.items), (.put, RelayPaths.item(item)), (.put, "/items/\(item)"),
            ]
            let bad: [[UInt8]] = [
                Array("{".utf8), Array(#"{"name": "a"#.utf8), [0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D],
                Array(#"{"zzz":1}"#.utf8), Array(#"[]"#.utf8), Array("null".utf8), [], Array(#"{"name":7}"#.utf8),
                [0xFF, 0xFE, 0x00, 0x7B],
            ]
            for (method, path) in routes {
                for body in bad {
                    let response = try await client.request(method, path, token: admin.token, bytes: body,
                                                            headers: [.contentType: "application/json"])
                    #expect(response.status == .badRequest, "\(method) \(path) \(body.prefix(12)) → \(response.status)")
                    #expect(errorCode(response) == "bad_request")
                }
                let huge = Array(#"{"name":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 400_000) + Array(#""}"#.utf8)
                let response = try await client.request(method, path, token: admin.token, bytes: huge, headers: [.contentType: "application/json"])
                #expect(response.status == .contentTooLarge, "\(method) \(path) oversize → \(response.status)")
            }
            // Headers: nonsense where numbers belong.
            #expect(try await client.request(.get, RelayPaths.events, token: admin.token, headers: [.lastEventID: "abc"]).status == .badRequest)
            let created = try await client.request(.post, RelayPaths.uploads, token: admin.token, headers: [tus: "1.0.0", uploadLength: "10"])
            let location = try #require(created.headers[.location])
            #expect(try await client.request(.patch, location, token: admin.token, bytes: [1],
                                             headers: [tus: "1.0.0", uploadOffset: "x", .contentType: "application/offset+octet-stream"]).status
                    == .badRequest)
            #expect(try await client.request(.post, RelayPaths.uploads, token: admin.token,
                                             headers: [tus: "1.0.0", uploadLength: "99999999999999999999999"]).status == .badRequest)
            // Paths: traversal and control characters in cloud names, overlong ids.
            #expect(try await client.request(.get, RelayPaths.cloud("/f/%2E%2E"), token: admin.token).status == .badRequest)
            #expect(try await client.request(.get, RelayPaths.cloud("/f/a%0Ab"), token: admin.token).status == .badRequest)
            #expect(try await client.request(.get, RelayPaths.device(String(repeating: "a", count: 500)), token: admin.token).status == .notFound)
            _ = upload
        }
    }
}

/// Just the id of an answer.
struct ItemID: Decodable { let id: String }

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("enrolment, tokens and devices")
struct EnrolmentTests {
    @Test("health answers without a token, and says the database answered")
    func health() async throws {
        // The product's 2 s is for load balancers; a test machine under load may take longer
        // to answer the first query, which is not what this test is about.
        try await RelayFixture { $0.healthDatabaseTimeout = .seconds(60) }.test { client in
            let response = try await client.request(.get, RelayPaths.health)
            #expect(response.status == .ok)
            #expect(try decode(HealthStatus.self, response) == HealthStatus(status: "ok", version: "1", database: "ok"))
        }
    }

    @Test("a code enrols one device once; the token is stored hashed")
    func enrolOnce() async throws {
        let fixture = try RelayFixture()
        let code = try await fixture.addUser("alice@acme.example", org: "acme")
        try await fixture.test { client in
            let device = try await client.enroll(code)
            #expect(device.token.count == 64)
            #expect(device.device.recipient == "age1testlaptop")
            let again = try await client.request(.post, RelayPaths.enroll,
                                                 json: #"{"code":"\#(code)","name":"x","platform":"linux","recipient":"age1x"}"#)
            #expect(again.status == .unauthorized)
            #expect(errorCode(again) == "unauthorized")
            // Lowercase and without dashes is the same code.
            let second = try await fixture.code(for: "alice@acme.example")
            let relaxed = second.lowercased().replacingOccurrences(of: "-", with: "")
            _ = try await client.enroll(relaxed, name: "phone")
        }
        let tokens = try await fixture.store.pool.read { db in try String.fetchAll(db, sql: "SELECT token_hash FROM devices") }
        #expect(tokens.count == 2)
        #expect(tokens.allSatisfy { $0.count == 64 })
    }

    @Test("an expired code is refused")
    func expiredCode() async throws {
        let fixture = try RelayFixture()
        _ = try await fixture.addUser("alice@acme.example", org: "acme")
        let code = try await fixture.code(for: "alice@acme.example", lifetime: -1)
        try await fixture.test { client in
            let response = try await client.request(.post, RelayPaths.enroll,
                                                    json: #"{"code":"\#(code)","name":"x","platform":"linux","recipient":"age1x"}"#)
            #expect(response.status == .unauthorized)
        }
    }

    @Test("five wrong codes in a row from one address: 429, even for a right code, until the lockout ends")
    func throttle() async throws {
        let fixture = try RelayFixture()
        let code = try await fixture.addUser("alice@acme.example", org: "acme")
        try await fixture.test { client in
            for _ in 0..<5 {
                let wrong = try await client.request(.post, RelayPaths.enroll,
                                                     json: #"{"code":"AAAA-BBBB-CCCC-DDDD","name":"x","platform":"linux","recipient":"age1x"}"#)
                #expect(wrong.status == .unauthorized)
            }
            let blocked = try await client.request(.post, RelayPaths.enroll,
                                                   json: #"{"code":"\#(code)","name":"x","platform":"linux","recipient":"age1x"}"#)
            #expect(blocked.status == .tooManyRequests)
            #expect(errorCode(blocked) == "too_many_requests")
            #expect(blocked.headers[.retryAfter] != nil)
        }
    }

    @Test("enrolment bodies: malformed, bad UTF-8, unknown fields, missing fields, bad values, oversize")
    func enrolBodies() async throws {
        let fixture = try RelayFixture()
        _ = try await fixture.addUser("alice@acme.example", org: "acme")
        try await fixture.test { client in
            let bad: [(String, HTTPResponse.Status)] = [
                ("{", .badRequest),
                (#"{"code":"A","name":"x","platform":"linux","recipient":"age1x","extra":1}"#, .badRequest),
                (#"{"code":"A","name":"x","platform":"linux"}"#, .badRequest),
                (#"{"code":"A","name":"","platform":"linux","recipient":"age1x"}"#, .badRequest),
                (#"{"code":"A","name":"x","platform":"linux","recipient":"age1 x"}"#, .badRequest),
                (#"[1,2]"#, .badRequest),
                ("", .badRequest),
            ]
            for (body, status) in bad {
                let response = try await client.request(.post, RelayPaths.enroll, json: body)
                #expect(response.status == status, "\(body)")
                #expect(errorCode(response) == "bad_request", "\(body)")
            }
            let utf8 = try await client.request(.post, RelayPaths.enroll, bytes: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D])
            #expect(utf8.status == .badRequest)
            let huge = try await client.request(.post, RelayPaths.enroll, json: #"{"code":""# + String(repeating: "A", count: 300_000) + #""}"#)
            #expect(huge.status == .contentTooLarge)
            #expect(errorCode(huge) == "too_large")
        }
    }

    @Test("names are limited in Unicode scalars (as the API document's maxLength counts), not characters: one letter and 100,000 combining marks is refused")
    func nameBytes() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let zalgo = "e" + String(repeating: "\u{0301}", count: 100_000)  // one character, 200,001 bytes
            #expect(zalgo.count == 1)
            let renamed = try await client.request(.patch, RelayPaths.device(laptop.id), token: laptop.token, json: #"{"name":"\#(zalgo)"}"#)
            #expect(renamed.status == .badRequest)
            let message = try decode(RelayErrorBody.self, renamed).message
            #expect(message.contains("(1 to 128 Unicode scalars, no control characters)"), "\(message)")
            #expect(message.utf8.count < 400, "the refusal does not echo the whole name back")
            let code = try await fixture.code(for: "alice@acme.example")
            let enrolled = try await client.request(.post, RelayPaths.enroll,
                                                    json: #"{"code":"\#(code)","name":"\#(zalgo)","platform":"linux","recipient":"age1x"}"#)
            #expect(enrolled.status == .badRequest)
            #expect(errorCode(enrolled) == "bad_request")
            // 65 letters with an accent each: 65 characters but 130 scalars, one scalar too many per pair.
            let marks = String(repeating: "e\u{0301}", count: 65)
            #expect(try await client.request(.patch, RelayPaths.device(laptop.id), token: laptop.token,
                                             json: #"{"name":"\#(marks)"}"#).status == .badRequest)
            #expect(try await client.request(.patch, RelayPaths.device(laptop.id), token: laptop.token,
                                             json: #"{"name":"\#(String(repeating: "a", count: 129))"}"#).status == .badRequest)
            // At the limit: 128 four-byte scalars (512 bytes), and 64 letters with one accent each (128 scalars).
            for name in [String(repeating: "😀", count: 128), String(repeating: "e\u{0301}", count: 64)] {
                let fine = try await client.request(.patch, RelayPaths.device(laptop.id), token: laptop.token, json: #"{"name":"\#(name)"}"#)
                #expect(fine.status == .ok)
                #expect(try decode(Device.self, fine).name == name)
            }
        }
    }

    @Test("routes behind the token: none, malformed or unknown is 401")
    func unauthorized() async throws {
        try await RelayFixture().test { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer"], [.authorization: "Basic abc"],
                                        [.authorization: "Bearer 0000000000000000000000000000000000000000000000000000000000000000"]] {
                let response = try await client.request(.get, RelayPaths.devices, headers: headers)
                #expect(response.status == .unauthorized)
                #expect(errorCode(response) == "unauthorized")
            }
            let unknown = try await client.request(.get, "/v1/nothing")
            #expect(unknown.status == .notFound)
            #expect(errorCode(unknown) == "not_found")
        }
    }

    @Test("the bearer token: the scheme in any case, blanks around the token dropped; other schemes and empty tokens refused")
    func bearerToken() {
        #expect(AuthMiddleware.bearerToken("Bearer abc") == "abc")
        #expect(AuthMiddleware.bearerToken("bearer abc") == "abc")
        #expect(AuthMiddleware.bearerToken("BEARER abc") == "abc")
        #expect(AuthMiddleware.bearerToken("Bearer \t abc-_.~ \t ") == "abc-_.~")
        #expect(AuthMiddleware.bearerToken("Bearer a b") == "a b")
        for refused in ["", "Bearer", "Bearer ", "Bearer  \t ", "Basic abc", "Bearerabc", "Bearer\tabc", "Bearerx abc", "Bëarer abc", " Bearer abc"] {
            #expect(AuthMiddleware.bearerToken(refused) == nil, "\(refused)")
        }
    }

    @Test("devices: list, show, rename, invalidate; another user's device is 404")
    func devices() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let bob = try await client.user("bob@acme.example", org: "acme")

            let list = try decode([Device].self, try await client.request(.get, RelayPaths.devices, token: laptop.token))
            #expect(list.map(\.id) == [laptop.id, phone.id])
            #expect(try await client.request(.get, RelayPaths.device(phone.id), token: laptop.token).status == .ok)

            let renamed = try await client.request(.patch, RelayPaths.device(phone.id), token: laptop.token, json: #"{"name":"pixel"}"#)
            #expect(renamed.status == .ok)
            #expect(try decode(Device.self, renamed).name == "pixel")
            #expect(try await client.request(.patch, RelayPaths.device(phone.id), token: laptop.token,
                                             json: #"{"name":"pixel","x":1}"#).status == .badRequest)

            // Bob sees nothing of alice's devices, whatever he tries.
            for method: HTTPRequest.Method in [.get, .delete] {
                let response = try await client.request(method, RelayPaths.device(phone.id), token: bob.token)
                #expect(response.status == .notFound)
            }
            #expect(try await client.request(.patch, RelayPaths.device(phone.id), token: bob.token, json: #"{"name":"x"}"#).status == .notFound)
            #expect(try decode([Device].self, try await client.request(.get, RelayPaths.devices, token: bob.token)).map(\.id) == [bob.id])

            // Invalidate the phone: its token dies at once.
            #expect(try await client.request(.get, RelayPaths.devices, token: phone.token).status == .ok)
            #expect(try await client.request(.delete, RelayPaths.device(phone.id), token: laptop.token).status == .noContent)
            #expect(try await client.request(.get, RelayPaths.devices, token: phone.token).status == .unauthorized)
            #expect(try await client.request(.get, RelayPaths.device(phone.id), token: laptop.token).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.device(phone.id), token: laptop.token).status == .notFound)
            // A device may log itself out.
            #expect(try await client.request(.delete, RelayPaths.device(laptop.id), token: laptop.token).status == .noContent)
            #expect(try await client.request(.get, RelayPaths.devices, token: laptop.token).status == .unauthorized)
        }
        let events = try await fixture.store.pool.read { db in try String.fetchAll(db, sql: "SELECT kind FROM events") }
        #expect(events.filter { $0 == "logout" }.count == 2)
    }
}

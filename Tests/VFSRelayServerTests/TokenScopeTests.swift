import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// Issue 48: a send-only device's token may push (uploads, transfers), read what a push
/// needs and its pushes' receipts; every other route answers 403 with the relay's error
/// body. The table names every route of the router: a route added without a line here
/// fails `everyRoute`, so no route is left to the scope's default by mistake.
@Suite("send-only token scope")
struct TokenScopeTests {
    enum Expect { case allowed, forbidden, noToken }

    /// Every route as the router writes it (`METHOD /path/{param}`); HEAD of a GET route
    /// follows its GET. The admin web page (its own session cookie, no device token) is
    /// `noToken` by its prefix, as are `/` and `/metrics`.
    static let table: [String: Expect] = [
        "GET /v1/health": .noToken, "GET /v1/openapi.yaml": .noToken, "POST /v1/enroll": .noToken, "OPTIONS /v1/uploads": .noToken,
        "POST /v1/uploads": .allowed, "HEAD /v1/uploads/{id}": .allowed, "PATCH /v1/uploads/{id}": .allowed,
        "DELETE /v1/uploads/{id}": .forbidden, "POST /v1/uploads/{id}": .forbidden,
        "POST /v1/transfers": .allowed, "GET /v1/outbox": .allowed,
        "GET /v1/inbox": .forbidden, "DELETE /v1/transfers/{id}": .forbidden, "GET /v1/transfers/{id}/content": .forbidden,
        "HEAD /v1/transfers/{id}/content": .forbidden,
        "POST /v1/transfers/{id}/ack": .forbidden, "POST /v1/transfers/{id}/decline": .forbidden,
        "GET /v1/devices": .allowed, "GET /v1/devices/{id}": .forbidden, "PATCH /v1/devices/{id}": .forbidden,
        "DELETE /v1/devices/{id}": .forbidden, "PUT /v1/devices/{id}/signing-key": .allowed,
        "GET /v1/chain": .allowed, "POST /v1/chain": .forbidden, "GET /v1/users/{user}/chain": .allowed,
        "GET /v1/groups": .forbidden, "POST /v1/groups": .forbidden, "GET /v1/groups/{name}": .allowed,
        "DELETE /v1/groups/{name}": .forbidden, "PUT /v1/groups/{name}/members/{device}": .forbidden,
        "DELETE /v1/groups/{name}/members/{device}": .forbidden,
        "GET /v1/org/users": .forbidden, "GET /v1/org/groups": .forbidden, "POST /v1/org/groups": .forbidden,
        "GET /v1/org/groups/{name}": .allowed, "PUT /v1/org/groups/{name}/members/{email}": .forbidden,
        "DELETE /v1/org/groups/{name}/members/{email}": .forbidden,
        "POST /v1/invites": .forbidden, "POST /v1/admin/login-codes": .forbidden,
        "GET /v1/cloud": .forbidden, "GET /v1/cloud/**": .forbidden, "POST /v1/cloud/**": .forbidden,
        "PUT /v1/cloud/**": .forbidden, "PATCH /v1/cloud/**": .forbidden, "DELETE /v1/cloud/**": .forbidden,
        "PUT /v1/cloud-header/**": .forbidden, "GET /v1/cloud-usage": .forbidden,
        // The cloud's history (issue 50): versions, trash and restore are the cloud's too.
        "GET /v1/cloud-log/**": .forbidden, "GET /v1/cloud-version/{id}": .forbidden, "GET /v1/cloud-trash": .forbidden,
        "POST /v1/cloud-restore": .forbidden, "POST /v1/cloud-restore/**": .forbidden,
        "GET /v1/cloud-versions": .forbidden, "PUT /v1/cloud-version-header/{id}": .forbidden,
        "GET /v1/items": .forbidden, "POST /v1/items": .forbidden, "GET /v1/items/{id}": .forbidden,
        "PUT /v1/items/{id}": .forbidden, "DELETE /v1/items/{id}": .forbidden,
        "GET /items": .forbidden, "POST /items": .forbidden, "GET /items/{id}": .forbidden,
        "PUT /items/{id}": .forbidden, "DELETE /items/{id}": .forbidden,
        "GET /v1/policy/settings": .allowed, "PUT /v1/policy/settings": .forbidden,
        "GET /v1/events": .forbidden, "HEAD /v1/events": .forbidden,
        // Share links (issue 51): a send-only server makes, lists and revokes none; the link
        // itself and the page's script are for whoever holds the link, with no token.
        "POST /v1/shares": .forbidden, "GET /v1/shares": .forbidden, "DELETE /v1/shares/{id}": .forbidden, "GET /v1/link-policy": .forbidden,
        "GET /s/{id}": .noToken, "GET /s/assets/share.js": .noToken, "GET /s/assets/saved/{id}": .noToken,
        // File requests (issue 51, item 4): likewise; whoever holds the link sends with no token.
        "POST /v1/requests": .forbidden, "GET /v1/requests": .forbidden, "DELETE /v1/requests/{id}": .forbidden,
        "GET /r/{id}": .noToken, "PUT /r/{id}": .noToken, "PUT /r/{id}/{name}": .noToken,
    ]

    static func expected(_ route: String) -> Expect? {
        if let expect = table[route] { return expect }
        let parts = route.split(separator: " ", maxSplits: 1)
        if parts[0] == "HEAD", let get = table["GET " + parts[1]] { return get }
        let path = parts[1]
        if path == "/" || path == "/metrics" || path.hasPrefix("/admin") { return .noToken }
        return nil
    }

    /// A request path for a route: `{id}` and the like filled in (with `own` for the
    /// signing key's device), the cloud's `**` with a name.
    static func path(_ route: String, own: String) -> String {
        route.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            if part == "**" { return "a" }
            if part.hasPrefix("{") { return part == "{id}" && route.hasSuffix("signing-key") ? own : "x" }
            return String(part)
        }.joined(separator: "/")
    }

    static func sendOnlyDevice(_ client: TestClient, of email: String) async throws -> TestDevice {
        let code = try await client.fixture.code(for: email)
        let response = try await client.request(.post, RelayPaths.enroll, json: #"{"code":"\#(code)","name":"server","platform":"linux","recipient":"age1testserver","sendOnly":true}"#)
        #expect(response.status == .created)
        let answer = try decode(EnrollResponse.self, response)
        return TestDevice(device: answer.device, token: answer.token)
    }

    @Test("every route of the router is in the table; a send-only token gets 403 (code forbidden, the scope's message) on each forbidden one and passes the others; an ordinary token is not scoped")
    func everyRoute() async throws {
        let fixture = try RelayFixture()
        let router = buildRouter(store: fixture.store, blobs: fixture.blobs, hub: fixture.hub,
                                 configuration: fixture.configuration, logger: Logger(label: "routes"))
        let routes = router.routes.map { "\($0.method.rawValue) \($0.path.description)" }
        #expect(routes.count > 50, "the routes were read: \(routes.count)")
        let unlisted = routes.filter { Self.expected($0) == nil }.sorted()
        #expect(unlisted.isEmpty, "routes the scope's table does not name: \(unlisted)")
        try await fixture.test { client in
            _ = try await client.user("alice@acme.example", org: "acme")
            let server = try await Self.sendOnlyDevice(client, of: "alice@acme.example")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            for route in routes {
                guard let expect = Self.expected(route), expect != .noToken else { continue }
                let method = HTTPRequest.Method(String(route.split(separator: " ")[0]))!
                let path = Self.path(String(route.split(separator: " ")[1]), own: server.id)
                let answer = try await client.request(method, path, token: server.token)
                let refused = answer.status == .forbidden && (method == .head || errorMessage(answer) == SendOnlyScope.refusal.message)
                switch expect {
                case .forbidden:
                    #expect(refused, "\(route): \(answer.status)")
                    if method != .head { #expect(errorCode(answer) == "forbidden", "\(route)") }
                case .allowed:
                    #expect(!refused, "\(route): \(answer.status) \(errorMessage(answer) ?? "")")
                case .noToken: break
                }
            }
            // Another device's signing key: refused by the scope too.
            let other = try await client.request(.put, RelayPaths.devices + "/\(phone.id)/signing-key", token: server.token, json: #"{"signingKey":"x"}"#)
            #expect(other.status == .forbidden && errorMessage(other) == SendOnlyScope.refusal.message)
            // An ordinary device of the same user: the inbox, the cloud, invites answer it.
            #expect(try await client.request(.get, RelayPaths.inbox, token: phone.token).status == .ok)
            #expect(try await client.request(.get, RelayPaths.cloud, token: phone.token).status == .ok)
            #expect(try await client.request(.post, RelayPaths.invites, token: phone.token).status == .created)
        }
    }

    @Test("a send-only device pushes: creates its upload and a transfer to a device of its user, and reads its receipts; the receiver fetches it; the server cannot fetch, list the inbox, cancel or delete it")
    func pushes() async throws {
        try await RelayFixture().test { client in
            let laptop = try await client.user("alice@acme.example", org: "acme")
            let server = try await Self.sendOnlyDevice(client, of: "alice@acme.example")
            let content = randomBytes(1000)
            let upload = try await client.upload(content, token: server.token)
            let created = try await client.request(.post, RelayPaths.transfers, token: server.token,
                                                   json: #"{"upload":"\#(upload)","devices":["\#(laptop.id)"],"groups":[],"users":[]}"#)
            #expect(created.status == .created, "\(errorMessage(created) ?? "")")
            let transfer = try #require(try JSONSerialization.jsonObject(with: Data(created.body.readableBytesView)) as? [String: Any])
            let id = try #require(transfer["id"] as? String)
            let outbox = try await client.request(.get, RelayPaths.outbox, token: server.token)
            #expect(outbox.status == .ok)
            #expect(String(decoding: bodyBytes(outbox), as: UTF8.self).contains(id))
            for (method, path) in [(HTTPRequest.Method.get, RelayPaths.transferContent(id)), (.get, RelayPaths.inbox),
                                   (.delete, RelayPaths.transfer(id)), (.post, RelayPaths.transferAck(id))] {
                let answer = try await client.request(method, path, token: server.token)
                #expect(answer.status == .forbidden, "\(method) \(path)")
                #expect(errorMessage(answer) == SendOnlyScope.refusal.message)
            }
            let fetched = try await client.request(.get, RelayPaths.transferContent(id), token: laptop.token)
            #expect(fetched.status == .ok)
            #expect(bodyBytes(fetched) == content)
        }
    }

    @Test("a failed send-only enrolment (a wrong code) leaves no mark; a good one marks the new device only")
    func marks() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.user("alice@acme.example", org: "acme")
            let wrong = try await client.request(.post, RelayPaths.enroll, json: #"{"code":"AAAA-BBBB-CCCC-DDDD","name":"server","platform":"linux","recipient":"age1x","sendOnly":true}"#)
            #expect(wrong.status == .unauthorized)
            let server = try await Self.sendOnlyDevice(client, of: "alice@acme.example")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            #expect(try await fixture.store.isSendOnly(device: server.id))
            #expect(try await !fixture.store.isSendOnly(device: phone.id))
            let marks = try await fixture.store.sql.database.read { db in
                try await db.value("SELECT COUNT(*) FROM send_only_devices", as: Int64.self)
            }
            #expect(marks == 1)
        }
    }
}

/// The `message` of the relay's error body.
func errorMessage(_ response: TestResponse) -> String? {
    (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])?["message"] as? String
}

/// The marks on both engines (issue 48): SQLite and PostgreSQL keep and read them alike.
@Suite("send-only marks in the store")
struct TokenScopeStoreTests {
    @Test("a mark is kept, read, and dropped; an unmarked id is not send-only; a mark twice is refused", arguments: Backend.allCases)
    func marks(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let (server, other) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32))
        #expect(try await !store.isSendOnly(device: server))
        try await store.markSendOnly(device: server, now: Date())
        #expect(try await store.isSendOnly(device: server))
        #expect(try await !store.isSendOnly(device: other))
        await #expect(throws: (any Error).self) { try await store.markSendOnly(device: server, now: Date()) }
        try await store.unmarkSendOnly(device: server)
        #expect(try await !store.isSendOnly(device: server))
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// File requests (issue 51, item 4): the store's atomic count and delivery on both
/// engines, the age header check, and the routes.
@Suite("file requests")
struct FileRequestTests {
    @Test("of 10 files at once to a request taking 1 exactly one is delivered, to each of its devices as an external transfer; revoked or expired it takes none", arguments: Backend.allCases)
    func countedAtOnce(_ backend: Backend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = fixture.store
        let alice = try await fixture.user("alice@acme.example", devices: 2)
        let devices = try await store.devices(user: alice[0].userID)
        let now = Date()
        let made = try await store.createFileRequest(id: "r1", owner: alice[0], devices: devices.map(\.id), recipients: devices.map(\.recipient),
                                                     expires: now.addingTimeInterval(3600), maxUploads: 1, now: now)
        #expect(made.maxUploads == 1 && made.uploads.isEmpty && made.recipients == devices.map(\.recipient))
        var uploads = [String]()
        for _ in 0..<10 { uploads.append(try await fixture.finishedUpload(alice[0], length: 10)) }
        let delivered = try await withThrowingTaskGroup(of: String?.self) { group in
            for (n, upload) in uploads.enumerated() {
                group.addTask {
                    try await store.deliverExternal(request: "r1", upload: upload, blobID: "b\(n)", name: n == 0 ? "a.pdf" : nil,
                                                    address: "192.0.2.\(n)", expires: now.addingTimeInterval(600), now: Date())
                }
            }
            return try await group.reduce(into: [String]()) { found, made in if let made { found.append(made) } }
        }
        #expect(delivered.count == 1)
        let transfer = try #require(delivered.first)
        for device in alice {
            let inbox = try await store.inbox(device: device.deviceID)
            #expect(inbox.map(\.id) == [transfer])
            #expect(inbox.first?.external?.request == "r1" && inbox.first?.sender == "r1" && inbox.first?.size == 10)
        }
        let listed = try #require(try await store.fileRequests(user: alice[0].userID).first)
        #expect(listed.uploads.map(\.transfer) == [transfer] && !listed.isLive(at: Date()))
        #expect(try await !store.publicFileRequest(id: "r1", now: Date()).live)
        #expect(try await fixture.referencesHold())

        // Unlimited until revoked or expired.
        let open = try await store.createFileRequest(id: "r2", owner: alice[0], devices: [devices[0].id], recipients: [devices[0].recipient],
                                                     expires: now.addingTimeInterval(60), maxUploads: nil, now: now)
        #expect(open.maxUploads == nil)
        #expect(try await store.deliverExternal(request: "r2", upload: uploads[1], blobID: "c1", name: nil, address: "a",
                                                expires: now.addingTimeInterval(600), now: now) != nil)
        #expect(try await store.deliverExternal(request: "r2", upload: uploads[2], blobID: "c2", name: nil, address: "a",
                                                expires: now.addingTimeInterval(600), now: now.addingTimeInterval(61)) == nil)
        try await store.revokeFileRequest(id: "r2", user: alice[0].userID, now: now)
        try await store.revokeFileRequest(id: "r2", user: alice[0].userID, now: now)
        #expect(try await store.deliverExternal(request: "r2", upload: uploads[2], blobID: "c3", name: nil, address: "a",
                                                expires: now.addingTimeInterval(600), now: now) == nil)
        #expect(try await fixture.referencesHold())
        // Another user's devices, a recipient that is not the device's, and another user's revoke are refused.
        let bob = try await fixture.user("bob@acme.example")
        await #expect(throws: StoreError.self) {
            try await store.createFileRequest(id: "r3", owner: bob[0], devices: [devices[0].id], recipients: [devices[0].recipient],
                                              expires: now.addingTimeInterval(60), maxUploads: nil, now: now)
        }
        await #expect(throws: StoreError.self) {
            try await store.createFileRequest(id: "r3", owner: alice[0], devices: [devices[0].id], recipients: [devices[1].recipient],
                                              expires: now.addingTimeInterval(60), maxUploads: nil, now: now)
        }
        await #expect(throws: StoreError.self) { try await store.revokeFileRequest(id: "r1", user: bob[0].userID, now: now) }
        #expect(try await store.fileRequests(user: bob[0].userID).isEmpty)
        // A removed user's requests go with them.
        _ = try await store.removeUser(email: "alice@acme.example", now: Date())
        await #expect(throws: StoreError.self) { try await store.publicFileRequest(id: "r1", now: Date()) }
    }

    /// An age file's bytes: a header with one stanza per entry of `stanzas` ("X25519",
    /// "scrypt", or any other type, each with random base64 where keys go), then `payload`.
    static func ageFile(_ stanzas: [String], payload: [UInt8] = randomBytes(1000)) -> [UInt8] {
        func b64(_ count: Int) -> String { Data(randomBytes(count)).base64EncodedString().replacingOccurrences(of: "=", with: "") }
        var text = "age-encryption.org/v1\n"
        for stanza in stanzas {
            switch stanza {
            case "X25519": text += "-> X25519 \(b64(32))\n\(b64(32))\n"
            case "scrypt": text += "-> scrypt \(b64(16)) 18\n\(b64(32))\n"
            default: text += "-> \(stanza)\n\(b64(12))\n"
            }
        }
        text += "--- \(b64(32))\n"
        return Array(text.utf8) + payload
    }

    @Test("the age header check: X25519 stanzas counted against the recipients, grease passed, anything else (not age, armored, scrypt, a plugin's, malformed, too long) refused")
    func headerCheck() throws {
        let check = AgeHeaderCheck(recipients: 2)
        let good = Self.ageFile(["X25519", "X25519"])
        let length = try #require(try check.headerLength(good, ended: false))
        #expect(length == good.count - 1000)
        #expect(try check.headerLength(Self.ageFile(["X25519", "abc-grease", "X25519"]), ended: false) != nil)
        // Bytes so far that are a header's beginning: more is needed; the end there is a refusal.
        #expect(try check.headerLength(Array(good.prefix(30)), ended: false) == nil)
        #expect(throws: RelayError.self) { try check.headerLength(Array(good.prefix(30)), ended: true) }
        for bad in [Self.ageFile(["X25519"]), Self.ageFile(["X25519", "X25519", "X25519"]), Self.ageFile(["X25519", "scrypt"]),
                    Self.ageFile(["X25519", "X25519", "piv-p256 abc"]), Array("PK\u{3}\u{4} not age at all".utf8),
                    Array("-----BEGIN AGE ENCRYPTED FILE-----\n".utf8),
                    Array("age-encryption.org/v1\n-> X25519 short\nAAAA\n--- AAAA\n".utf8),
                    Array("age-encryption.org/v1\n".utf8) + Array(repeating: UInt8(ascii: "a"), count: 20_000)] {
            #expect(throws: RelayError.self, "\(String(decoding: bad.prefix(60), as: UTF8.self))") { try check.headerLength(bad, ended: false) }
            do {
                _ = try check.headerLength(bad, ended: false)
            } catch let error as RelayError {
                #expect(error.status == .unsupportedMediaType)
            }
        }
    }

    /// Enrols a device of `email` with the X25519 recipient `recipient`.
    func device(_ client: TestClient, of email: String, name: String, recipient: String) async throws -> TestDevice {
        let code = try await client.fixture.code(for: email)
        let response = try await client.request(.post, RelayPaths.enroll,
                                                json: #"{"code":"\#(code)","name":"\#(name)","platform":"linux","recipient":"\#(recipient)"}"#)
        #expect(response.status == .created)
        let answer = try decode(EnrollResponse.self, response)
        return TestDevice(device: answer.device, token: answer.token)
    }

    static let recipients = ["age1" + String(repeating: "q", count: 58), "age1" + String(repeating: "p", count: 58)]

    @Test("PUT /r/ID without a token: an age file to the request's recipients is delivered to their devices' inboxes byte for byte, marked external; not age, scrypt or a wrong count is 415; past --uploads 410; GET gives the recipients or the page")
    func routes() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            _ = try await client.fixture.addUser("alice@acme.example", org: "acme")
            let laptop = try await device(client, of: "alice@acme.example", name: "laptop", recipient: Self.recipients[0])
            let phone = try await device(client, of: "alice@acme.example", name: "phone", recipient: Self.recipients[1])
            let body = #"{"devices":["\#(laptop.id)","\#(phone.id)"],"recipients":["\#(Self.recipients[0])","\#(Self.recipients[1])"],"uploads":2}"#
            #expect(try await client.request(.post, RelayPaths.fileRequests, json: body).status == .unauthorized)
            let created = try await client.request(.post, RelayPaths.fileRequests, token: laptop.token, json: body)
            #expect(created.status == .created)
            let made = try decode(FileRequest.self, created)
            #expect(created.headers[.location] == RelayPaths.requestLink(made.id) && made.maxUploads == 2)
            // The recipients, as age -R reads them; the page lists them for a browser.
            let listed = try await client.request(.get, RelayPaths.requestLink(made.id))
            #expect(listed.status == .ok && String(decoding: bodyBytes(listed), as: UTF8.self) == Self.recipients.joined(separator: "\n") + "\n")
            let page = try await client.request(.get, RelayPaths.requestLink(made.id), headers: [.accept: "text/html,*/*"])
            let html = String(decoding: bodyBytes(page), as: UTF8.self)
            #expect(page.status == .ok && html.contains(Self.recipients[1]) && html.contains("id=\"upload\""))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'self'") == true)

            // Refused before a byte is kept: nothing counted, nothing delivered.
            for bad in [Array("just some text\n".utf8), Self.ageFile(["scrypt"]), Self.ageFile(["X25519"]),
                        Self.ageFile(["X25519", "X25519", "X25519"])] {
                let answer = try await client.request(.put, RelayPaths.requestLink(made.id), bytes: bad)
                #expect(answer.status == .unsupportedMediaType && errorCode(answer) == "unsupported_media_type", "\(answer.status)")
            }
            #expect(try await client.request(.get, RelayPaths.inbox, token: phone.token).body.readableBytes == 2)
            #expect(fixture.blobFiles().isEmpty)

            let file = Self.ageFile(["X25519", "X25519"], payload: randomBytes(300_000))
            let sent = try await client.request(.put, RelayPaths.requestLink(made.id) + "/report%20final.pdf", bytes: file)
            #expect(sent.status == .created, "\(errorMessage(sent) ?? "")")
            let inbox = try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token))
            let entry = try #require(inbox.first)
            #expect(inbox.count == 1 && entry.external == ExternalOrigin(request: made.id, name: "report final.pdf") && entry.size == Int64(file.count))
            let content = try await client.request(.get, RelayPaths.transfers + "/\(entry.id)/content", token: laptop.token)
            #expect(content.status == .ok && bodyBytes(content) == file)
            // A second, unnamed; the third is past the limit.
            #expect(try await client.request(.put, RelayPaths.requestLink(made.id), bytes: Self.ageFile(["X25519", "X25519"])).status == .created)
            let third = try await client.request(.put, RelayPaths.requestLink(made.id), bytes: Self.ageFile(["X25519", "X25519"]))
            #expect(third.status == .gone && errorCode(third) == "gone")
            #expect(try await client.request(.get, RelayPaths.requestLink(made.id)).status == .gone)
            let mine = try decode([FileRequest].self, try await client.request(.get, RelayPaths.fileRequests, token: laptop.token))
            #expect(mine.first?.uploads.map(\.name) == ["report final.pdf", nil])
            #expect(mine.first?.uploads.first?.size == Int64(file.count))

            // Revoked: 410; bad requests: not X25519, a device of another user, no devices, a limit of 0.
            let again = try decode(FileRequest.self, try await client.request(.post, RelayPaths.fileRequests, token: laptop.token,
                                                                               json: #"{"devices":["\#(laptop.id)"],"recipients":["\#(Self.recipients[0])"]}"#))
            #expect(try await client.request(.delete, RelayPaths.fileRequest(again.id), token: laptop.token).status == .noContent)
            #expect(try await client.request(.put, RelayPaths.requestLink(again.id), bytes: Self.ageFile(["X25519"])).status == .gone)
            #expect(try await client.request(.post, RelayPaths.fileRequests, token: laptop.token,
                                             json: #"{"devices":["\#(laptop.id)"],"recipients":["age1testlaptop"]}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.fileRequests, token: laptop.token,
                                             json: #"{"devices":[],"recipients":[]}"#).status == .badRequest)
            #expect(try await client.request(.post, RelayPaths.fileRequests, token: laptop.token,
                                             json: #"{"devices":["\#(laptop.id)"],"recipients":["\#(Self.recipients[0])"],"uploads":0}"#).status == .badRequest)
            let bob = try await client.user("bob@acme.example", org: "acme")
            let stolen = try await client.request(.post, RelayPaths.fileRequests, token: bob.token,
                                                  json: #"{"devices":["\#(laptop.id)"],"recipients":["\#(Self.recipients[0])"]}"#)
            #expect(stolen.status == .notFound || stolen.status == .badRequest)
            #expect(try await client.request(.delete, RelayPaths.fileRequest(made.id), token: bob.token).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.requestLink("0123456789abcdef0123456789abcdef")).status == .notFound)
        }
    }
}

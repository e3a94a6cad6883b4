import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

let tus = HTTPField.Name("Tus-Resumable")!
let uploadLength = HTTPField.Name("Upload-Length")!
let uploadOffset = HTTPField.Name("Upload-Offset")!
let deferLength = HTTPField.Name("Upload-Defer-Length")!

@Suite("tus uploads")
struct UploadTests {
    func patch(_ client: TestClient, _ id: String, token: String, offset: Int, _ bytes: [UInt8],
               contentType: String = "application/offset+octet-stream", length: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [tus: "1.0.0", uploadOffset: "\(offset)", .contentType: contentType, .contentLength: "\(bytes.count)"]
        if let length { headers[uploadLength] = length }
        return try await client.request(.patch, RelayPaths.upload(id), token: token, bytes: bytes, headers: headers)
    }

    @Test("discovery, creation, resumable PATCHes, HEAD offsets, the digest at the end")
    func resumable() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let options = try await client.request(.options, RelayPaths.uploads)
            #expect(options.status == .noContent)
            #expect(options.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
            #expect(options.headers[HTTPField.Name("Tus-Extension")!] == "creation,creation-defer-length,termination,expiration,checksum")
            #expect(options.headers[HTTPField.Name("Tus-Checksum-Algorithm")!] == "sha1,sha256,sha512")

            let alice = try await client.user("alice@acme.example", org: "acme")
            let content = randomBytes(100_000)
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                                   headers: [tus: "1.0.0", uploadLength: "\(content.count)"])
            #expect(created.status == .created)
            #expect(created.headers[HTTPField.Name("Upload-Expires")!]?.hasSuffix("GMT") == true)
            let id = String(try #require(created.headers[.location]).split(separator: "/").last!)

            #expect(try await patch(client, id, token: alice.token, offset: 0, Array(content[0..<40_000])).status == .noContent)
            let head = try await client.request(.head, RelayPaths.upload(id), token: alice.token, headers: [tus: "1.0.0"])
            #expect(head.status == .ok)
            #expect(head.headers[uploadOffset] == "40000")
            #expect(head.headers[uploadLength] == "100000")
            #expect(head.headers[.cacheControl] == "no-store")

            // A PATCH at the wrong offset changes nothing.
            let wrong = try await patch(client, id, token: alice.token, offset: 0, Array(content[0..<10]))
            #expect(wrong.status == .conflict)
            #expect(wrong.headers[uploadOffset] == "40000")
            #expect(try await patch(client, id, token: alice.token, offset: 40_000, [1], contentType: "application/json").status
                    == .unsupportedMediaType)
            // Past the declared length: 413, nothing written past it.
            let over = try await patch(client, id, token: alice.token, offset: 40_000, Array(repeating: 0, count: 60_001))
            #expect(over.status == .contentTooLarge)

            let done = try await patch(client, id, token: alice.token, offset: 40_000, Array(content[40_000...]))
            #expect(done.status == .noContent)
            #expect(done.headers[uploadOffset] == "100000")
            let record = try await fixture.store.upload(id: id, user: 1)
            #expect(record.sha256 == sha256Hex(content))
            let file = try Data(contentsOf: fixture.folder.appendingPathComponent("uploads/\(id)"))
            #expect(Array(file) == content)
        }
    }

    @Test("Tus-Resumable is required; Upload-Length must be a number, or deferred with Upload-Defer-Length: 1 (not both)")
    func headers() async throws {
        try await RelayFixture().test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let noVersion = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [uploadLength: "5"])
            #expect(noVersion.status == .preconditionFailed)
            #expect(noVersion.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
            for length in ["", "-1", "abc"] {
                let response = try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                                        headers: [tus: "1.0.0", uploadLength: length])
                #expect(response.status == .badRequest)
            }
            for bad: HTTPFields in [[tus: "1.0.0", deferLength: "2"], [tus: "1.0.0", deferLength: "1", uploadLength: "5"]] {
                #expect(try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: bad).status == .badRequest)
            }
            #expect(try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                             headers: [tus: "1.0.0", deferLength: "1"]).status == .created)
            #expect(try await client.request(.head, RelayPaths.upload("0011"), token: alice.token, headers: [tus: "1.0.0"]).status == .notFound)
        }
    }

    @Test("deferred length: HEAD says so; nothing is offered until a PATCH declares the length, once; a body past it is 413")
    func deferredLength() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let phone = try await client.device(of: "alice@acme.example", name: "phone")
            let content = randomBytes(70_000)
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", deferLength: "1"])
            #expect(created.status == .created)
            let id = String(try #require(created.headers[.location]).split(separator: "/").last!)
            func head() async throws -> TestResponse {
                try await client.request(.head, RelayPaths.upload(id), token: alice.token, headers: [tus: "1.0.0"])
            }
            func offer() async throws -> TestResponse {
                try await client.request(.post, RelayPaths.transfers, token: alice.token, json: #"{"upload":"\#(id)","devices":["\#(phone.id)"]}"#)
            }
            func inbox() async throws -> [InboxEntry] {
                try decode([InboxEntry].self, try await client.request(.get, RelayPaths.inbox, token: phone.token))
            }
            var status = try await head()
            #expect(status.headers[deferLength] == "1")
            #expect(status.headers[uploadLength] == nil)
            #expect(status.headers[uploadOffset] == "0")

            // Bytes arrive while the length is unknown: never offered, however many there are.
            #expect(try await patch(client, id, token: alice.token, offset: 0, Array(content[0..<30_000])).status == .noContent)
            #expect(try await patch(client, id, token: alice.token, offset: 30_000, Array(content[30_000...])).status == .noContent)
            #expect(try await offer().status == .conflict)
            #expect(try await inbox().isEmpty)
            #expect(try await fixture.store.upload(id: id, user: 1).length == nil)
            #expect(try await fixture.store.usage(user: 1) == 70_000)

            // A length below what already arrived, or not a number: 400, still deferred.
            for bad in ["69999", "x", "-1"] {
                #expect(try await patch(client, id, token: alice.token, offset: 70_000, [], length: bad).status == .badRequest)
            }
            #expect(try await head().headers[deferLength] == "1")
            // A body that runs past the length it declares: 413, the length unset, nothing written.
            #expect(try await patch(client, id, token: alice.token, offset: 70_000, [1, 2, 3], length: "70002").status == .contentTooLarge)
            #expect(try await head().headers[deferLength] == "1")

            // The final (empty) PATCH declares it: finished, digest recorded.
            let final = try await patch(client, id, token: alice.token, offset: 70_000, [], length: "70000")
            #expect(final.status == .noContent)
            #expect(final.headers[uploadOffset] == "70000")
            status = try await head()
            #expect(status.headers[uploadLength] == "70000")
            #expect(status.headers[deferLength] == nil)
            #expect(try await fixture.store.upload(id: id, user: 1).sha256 == sha256Hex(content))
            // Set twice: refused, even with the same value.
            for again in ["70000", "80000"] {
                let twice = try await patch(client, id, token: alice.token, offset: 70_000, [], length: again)
                #expect(twice.status == .badRequest)
                #expect((try? decode(RelayErrorBody.self, twice))?.message.contains("set once") == true)
            }
            #expect(try await head().headers[uploadLength] == "70000")
            #expect(try await offer().status == .created)
            #expect(try await inbox().map(\.size) == [70_000])
        }
    }

    @Test("deferred length: the length can come with the last bytes; PATCHes past it are 413; the cap applies while it is unknown")
    func deferredLengthWithBytes() async throws {
        let fixture = try RelayFixture { $0.maxUploadSize = 1000 }
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let content = randomBytes(900)
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", deferLength: "1"])
            let id = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(try await patch(client, id, token: alice.token, offset: 0, Array(content[0..<500])).status == .noContent)
            let last = try await patch(client, id, token: alice.token, offset: 500, Array(content[500...]), length: "900")
            #expect(last.status == .noContent)
            #expect(try await fixture.store.upload(id: id, user: 1).sha256 == sha256Hex(content))
            // Beyond the declared length: refused, the file unchanged.
            #expect(try await patch(client, id, token: alice.token, offset: 900, [7]).status == .contentTooLarge)
            #expect(Array(try Data(contentsOf: fixture.folder.appendingPathComponent("uploads/\(id)"))) == content)

            // Without a length, the size cap still holds (Tus-Max-Size), and a length past it is refused.
            let other = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", deferLength: "1"])
            let second = String(try #require(other.headers[.location]).split(separator: "/").last!)
            #expect(try await patch(client, second, token: alice.token, offset: 0, [], length: "1001").status == .contentTooLarge)
            let over = try await patch(client, second, token: alice.token, offset: 0, randomBytes(1001))
            #expect(over.status == .contentTooLarge)
            #expect(try await fixture.store.upload(id: second, user: 1).length == nil)
        }
    }

    @Test("size cap and per-user quota are 413")
    func limits() async throws {
        let fixture = try RelayFixture { $0.maxUploadSize = 1000; $0.userQuota = 1500 }
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let big = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "1001"])
            #expect(big.status == .contentTooLarge)
            #expect(errorCode(big) == "too_large")
            _ = try await client.upload(randomBytes(1000), token: alice.token)
            let quota = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "501"])
            #expect(quota.status == .contentTooLarge)
            #expect(errorCode(quota) == "quota_exceeded")
            #expect(try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                             headers: [tus: "1.0.0", uploadLength: "500"]).status == .created)
            // Another user has a quota of their own.
            let bob = try await client.user("bob@acme.example", org: "acme")
            #expect(try await client.request(.post, RelayPaths.uploads, token: bob.token,
                                             headers: [tus: "1.0.0", uploadLength: "1000"]).status == .created)
        }
    }

    @Test("a user holds at most maxOpenUploads uploads, zero-byte ones included: past it 429, no file left; a deleted one frees its place")
    func openUploadCap() async throws {
        let fixture = try RelayFixture { $0.maxOpenUploads = 2 }
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            var locations = [String]()
            for length in ["0", "0"] {
                let created = try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                                       headers: [tus: "1.0.0", uploadLength: length])
                #expect(created.status == .created)
                locations.append(try #require(created.headers[.location]))
            }
            let third = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", deferLength: "1"])
            #expect(third.status == .tooManyRequests)
            #expect(errorCode(third) == "too_many_requests")
            #expect(fixture.uploadFiles().count == 2)
            // Another user has a cap of their own.
            let bob = try await client.user("bob@acme.example", org: "acme")
            #expect(try await client.request(.post, RelayPaths.uploads, token: bob.token,
                                             headers: [tus: "1.0.0", uploadLength: "0"]).status == .created)
            #expect(try await client.request(.delete, locations[0], token: alice.token, headers: [tus: "1.0.0"]).status == .noContent)
            #expect(try await client.request(.post, RelayPaths.uploads, token: alice.token,
                                             headers: [tus: "1.0.0", uploadLength: "0"]).status == .created)
        }
    }

    @Test("termination deletes the upload and its file; another user's upload is 404")
    func termination() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "10"])
            let id = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(fixture.uploadFiles() == [id])
            for method: HTTPRequest.Method in [.head, .delete] {
                #expect(try await client.request(method, RelayPaths.upload(id), token: bob.token, headers: [tus: "1.0.0"]).status == .notFound)
            }
            #expect(try await patch(client, id, token: bob.token, offset: 0, [1, 2]).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.upload(id), token: alice.token, headers: [tus: "1.0.0"]).status == .noContent)
            #expect(fixture.uploadFiles().isEmpty)
            let audit = try await fixture.store.pool.read { db in
                try String.fetchAll(db, sql: "SELECT action FROM audit WHERE subject = ?", arguments: [id])
            }
            #expect(audit == ["upload.create", "upload.delete"])
            #expect(try await client.request(.head, RelayPaths.upload(id), token: alice.token, headers: [tus: "1.0.0"]).status == .notFound)
        }
    }

    @Test("an expired upload is gone, and the sweep deletes its row and file")
    func expiration() async throws {
        let fixture = try RelayFixture { $0.uploadLifetime = -1 }
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "10"])
            let id = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(try await client.request(.head, RelayPaths.upload(id), token: alice.token, headers: [tus: "1.0.0"]).status == .notFound)
        }
        let report = try await RelayMaintenance(store: fixture.store, blobs: fixture.blobs, configuration: fixture.configuration).sweep()
        #expect(report.expiredUploads == 1)
        #expect(fixture.uploadFiles().isEmpty)
        #expect(try await fixture.store.uploadIDs().isEmpty)
    }
}

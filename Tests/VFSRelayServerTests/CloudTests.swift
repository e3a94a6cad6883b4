import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

@Suite("cloud tree")
struct CloudTests {
    @Test("mkdir, put, list, get with Range, move, replace, recursive delete releasing references; per user")
    func tree() async throws {
        let fixture = try RelayFixture()
        try await fixture.test { client in
            let alice = try await client.user("alice@acme.example", org: "acme")
            let bob = try await client.user("bob@acme.example", org: "acme")
            let folder = #"{"kind":"folder"}"#
            #expect(try await client.request(.post, RelayPaths.cloud("/photos"), token: alice.token, json: folder).status == .created)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos"), token: alice.token, json: folder).status == .conflict)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos/2026"), token: alice.token, json: folder).status == .created)
            #expect(try await client.request(.post, RelayPaths.cloud("/nope/x"), token: alice.token, json: folder).status == .notFound)
            #expect(try await client.request(.post, RelayPaths.cloud("/photos/x"), token: alice.token, json: #"{"kind":"file"}"#).status == .badRequest)

            let content = randomBytes(5000)
            let upload = try await client.upload(content, token: alice.token)
            let put = try await client.request(.put, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token, json: #"{"upload":"\#(upload)"}"#)
            #expect(put.status == .created)
            let entry = try decode(CloudEntry.self, put)
            #expect(entry.path == "/photos/2026/a b.age" && entry.size == 5000 && entry.sha256 == sha256Hex(content))

            let root = try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: alice.token))
            #expect(root.map(\.name) == ["photos"])
            let year = try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud("/photos/2026"), token: alice.token))
            #expect(year.map(\.path) == ["/photos/2026/a b.age"])
            let file = try await client.request(.get, RelayPaths.cloud("/photos/2026/a%20b.age"), token: alice.token)
            #expect(bodyBytes(file) == content)
            let part = try await client.request(.get, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token, headers: [.range: "bytes=100-199"])
            #expect(part.status == .partialContent)
            #expect(bodyBytes(part) == Array(content[100..<200]))

            // Bob's tree is his own: alice's paths do not exist for him.
            #expect(try decode([CloudEntry].self, try await client.request(.get, RelayPaths.cloud, token: bob.token)).isEmpty)
            #expect(try await client.request(.get, RelayPaths.cloud("/photos/2026/a b.age"), token: bob.token).status == .notFound)
            #expect(try await client.request(.delete, RelayPaths.cloud("/photos"), token: bob.token).status == .notFound)
            #expect(try await client.request(.patch, RelayPaths.cloud("/photos"), token: bob.token, json: #"{"to":"/x"}"#).status == .notFound)
            #expect(try await client.request(.put, RelayPaths.cloud("/b.age"), token: bob.token, json: #"{"upload":"\#(upload)"}"#).status == .notFound)

            // Replace the file: the old blob goes.
            let second = try await client.upload(randomBytes(10), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/photos/2026/a b.age"), token: alice.token,
                                             json: #"{"upload":"\#(second)"}"#).status == .created)
            #expect(fixture.blobFiles().count == 1)

            // Moves: rename a folder, refuse moving into itself or onto an existing name.
            let moved = try await client.request(.patch, RelayPaths.cloud("/photos/2026"), token: alice.token, json: #"{"to":"/archive-2026"}"#)
            #expect(moved.status == .ok)
            #expect(try decode(CloudEntry.self, moved).path == "/archive-2026")
            #expect(try await client.request(.get, RelayPaths.cloud("/archive-2026/a b.age"), token: alice.token).status == .ok)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/archive-2026/inner"}"#).status == .conflict)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/photos"}"#).status == .conflict)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/photos/../x"}"#).status == .badRequest)

            // A file cannot replace a folder; an unfinished upload is no file; parents must exist.
            let third = try await client.upload(randomBytes(5), token: alice.token)
            #expect(try await client.request(.put, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .conflict)
            let created = try await client.request(.post, RelayPaths.uploads, token: alice.token, headers: [tus: "1.0.0", uploadLength: "9"])
            let unfinished = String(try #require(created.headers[.location]).split(separator: "/").last!)
            #expect(try await client.request(.put, RelayPaths.cloud("/u"), token: alice.token,
                                             json: #"{"upload":"\#(unfinished)"}"#).status == .conflict)
            #expect(try await client.request(.put, RelayPaths.cloud("/none/u"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .notFound)
            #expect(try await client.request(.patch, RelayPaths.cloud("/archive-2026"), token: alice.token,
                                             json: #"{"to":"/none/x"}"#).status == .notFound)
            #expect(try await client.request(.get, RelayPaths.cloud("/archive-2026/a b.age/deeper"), token: alice.token).status == .notFound)
            // The failed PUTs left the upload usable.
            #expect(try await client.request(.put, RelayPaths.cloud("/archive-2026/third"), token: alice.token,
                                             json: #"{"upload":"\#(third)"}"#).status == .created)

            #expect(try await client.request(.delete, RelayPaths.cloud("/archive-2026"), token: alice.token).status == .noContent)
            #expect(fixture.blobFiles().isEmpty)
            #expect(try await fixture.store.referenceAudit().isEmpty)
            #expect(try await client.request(.delete, RelayPaths.cloud("/"), token: alice.token).status == .notFound)
        }
    }
}
